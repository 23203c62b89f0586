import CReadOSM
import Foundation
import Routing

extension RoadNetworkInput {
    /// Several OSM files' inputs as one: a node or way with the same id in several files is kept once
    /// (the first file's), as is a turn restriction; counts add up.
    static func merged(_ parts: [RoadNetworkInput]) -> RoadNetworkInput {
        guard parts.count > 1 else { return parts.first ?? RoadNetworkInput() }
        var m = RoadNetworkInput()
        m.nodesSorted = false
        var seenWays = Set<Int64>(), seenRelations = Set<Int64>()
        for var x in parts {
            x.finish()
            m.nodeIds += x.nodeIds; m.nodeLat += x.nodeLat; m.nodeLon += x.nodeLon
            m.blockedNodes.formUnion(x.blockedNodes)
            m.invalidNodes += x.invalidNodes
            for w in 0..<x.wayIds.count where seenWays.insert(x.wayIds[w]).inserted {
                m.wayIds.append(x.wayIds[w]); m.wayRules.append(x.wayRules[w])
                m.refs += x.refs[Int(x.wayFirstRef[w])..<Int(x.wayFirstRef[w + 1])]
                m.wayFirstRef.append(UInt32(m.refs.count))
            }
            for r in x.restrictions where seenRelations.insert(r.id).inserted { m.restrictions.append(r) }
            m.skippedRestrictions += x.skippedRestrictions
            m.totalNodes += x.totalNodes; m.totalWays += x.totalWays; m.totalRelations += x.totalRelations
        }
        // Sort by id (stable: the first file's copy of a shared node comes first), then drop repeats.
        let order = m.nodeIds.indices.sorted { (m.nodeIds[$0], $0) < (m.nodeIds[$1], $1) }
        var ids: [Int64] = [], lat: [Int32] = [], lon: [Int32] = []
        ids.reserveCapacity(order.count); lat.reserveCapacity(order.count); lon.reserveCapacity(order.count)
        for i in order where ids.last != m.nodeIds[i] {
            ids.append(m.nodeIds[i]); lat.append(m.nodeLat[i]); lon.append(m.nodeLon[i])
        }
        m.sharedNodes = m.nodeIds.count - ids.count
        m.nodeIds = ids; m.nodeLat = lat; m.nodeLon = lon
        m.nodesSorted = true
        return m
    }
}

/// Why an OSM file could not be read: the file and the cause.
public struct OSMImportError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Reads OSM XML (`.osm`) and PBF (`.osm.pbf`) files with readosm.
enum OSMReader {
    /// Reads `path`; `progress` gets a line now and then on large files. A gzip-compressed
    /// XML file (`.osm.gz`) is inflated first by the system's `gzip -dc` into a temporary
    /// `.osm` file (readosm reads only `.osm` and `.pbf` by name), removed afterwards.
    static func read(path: String, progress: ((String) -> Void)?) throws(OSMImportError) -> RoadNetworkInput {
        let lower = path.lowercased()
        guard lower.hasSuffix(".osm") || lower.hasSuffix(".pbf") || lower.hasSuffix(".osm.gz") else {
            throw OSMImportError("\(path): an OSM file must end in .osm (XML), .osm.gz (gzip XML) or .osm.pbf (PBF)")
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw OSMImportError("\(path): cannot read the file (missing or not readable)")
        }
        if lower.hasSuffix(".osm.gz") {
            let plain = try inflate(path)
            defer { unlink(plain) }
            return try readPlain(path: plain, shownAs: path, progress: progress)
        }
        return try readPlain(path: path, shownAs: path, progress: progress)
    }

    /// `gzip -dc path` into a temporary `.osm` file; its path.
    static func inflate(_ path: String) throws(OSMImportError) -> String {
        let name = "taxipot-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).osm"
        let plain = (NSTemporaryDirectory() as NSString).appendingPathComponent(name)
        guard FileManager.default.createFile(atPath: plain, contents: nil), let out = FileHandle(forWritingAtPath: plain) else {
            throw OSMImportError("\(path): cannot create a temporary file to inflate it into (\(plain))")
        }
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gzip.arguments = ["-dc", "--", path]
        gzip.standardOutput = out
        gzip.standardError = FileHandle.nullDevice
        do {
            try gzip.run()
        } catch {
            try? out.close()
            unlink(plain)
            throw OSMImportError("\(path): cannot run /bin/gzip to inflate it (\(error))")
        }
        gzip.waitUntilExit()
        try? out.close()
        guard gzip.terminationStatus == 0 else {
            unlink(plain)
            throw OSMImportError("\(path): not a valid gzip file (gzip -dc exited with \(gzip.terminationStatus))")
        }
        return plain
    }

    static func readPlain(path: String, shownAs shown: String, progress: ((String) -> Void)?) throws(OSMImportError) -> RoadNetworkInput {
        var handle: UnsafeRawPointer?
        let openCode = readosm_open(path, &handle)
        defer { if handle != nil { readosm_close(handle) } }
        guard openCode == READOSM_OK else { throw OSMImportError("\(shown): cannot open: \(describe(openCode))") }
        let collector = Collector(progress: progress)
        let context = Unmanaged.passUnretained(collector).toOpaque()
        let code = readosm_parse(handle, context, nodeCallback, wayCallback, relationCallback)
        guard code == READOSM_OK else {
            throw OSMImportError("\(shown): not a valid OSM file: \(describe(code)) (after \(collector.extract.totalNodes) nodes, \(collector.extract.totalWays) ways)")
        }
        var extract = collector.extract
        extract.finish()
        return extract
    }

    static func describe(_ code: Int32) -> String {
        switch code {
        case READOSM_INVALID_SUFFIX: "the name must end in .osm or .pbf"
        case READOSM_FILE_NOT_FOUND: "file not found or not readable"
        case READOSM_INSUFFICIENT_MEMORY: "out of memory"
        case READOSM_READ_ERROR: "read error (truncated or not an OSM file)"
        case READOSM_XML_ERROR: "XML syntax error"
        case READOSM_INVALID_PBF_HEADER: "invalid PBF header"
        case READOSM_UNZIP_ERROR: "a compressed PBF block does not inflate (corrupt)"
        case READOSM_ABORT: "aborted"
        default: "readosm error \(code)"
        }
    }

    /// Receives readosm's callbacks.
    final class Collector {
        var extract = RoadNetworkInput()
        let progress: ((String) -> Void)?
        var lastNodeId = Int64.min

        init(progress: ((String) -> Void)?) { self.progress = progress }

        func addNode(_ node: UnsafePointer<readosm_node>) {
            let n = node.pointee
            extract.totalNodes += 1
            if extract.totalNodes % 1_000_000 == 0 { progress?("read \(extract.totalNodes / 1_000_000)M nodes") }
            let lat = n.latitude, lon = n.longitude
            guard lat.isFinite, lon.isFinite, abs(lat) <= 90, abs(lon) <= 180 else {
                extract.invalidNodes += 1
                return
            }
            if n.id <= lastNodeId { extract.nodesSorted = false }
            lastNodeId = n.id
            extract.nodeIds.append(n.id)
            extract.nodeLat.append(Int32((lat * 1e7).rounded()))
            extract.nodeLon.append(Int32((lon * 1e7).rounded()))
            if n.tag_count > 0, let tags = n.tags {
                var barrier: String?, access: String?, motorVehicle: String?, motorcar: String?
                for i in 0..<Int(n.tag_count) {
                    guard let k = tags[i].key, let v = tags[i].value else { continue }
                    switch String(cString: k) {
                    case "barrier": barrier = String(cString: v)
                    case "access": access = String(cString: v)
                    case "motor_vehicle": motorVehicle = String(cString: v)
                    case "motorcar": motorcar = String(cString: v)
                    default: break
                    }
                }
                if CarProfile.blocksCars(barrier: barrier, access: access, motorVehicle: motorVehicle, motorcar: motorcar) {
                    extract.blockedNodes.insert(n.id)
                }
            }
        }

        func addWay(_ way: UnsafePointer<readosm_way>) {
            let w = way.pointee
            extract.totalWays += 1
            if extract.totalWays % 250_000 == 0 { progress?("read \(extract.totalWays / 1000)k ways") }
            guard w.tag_count > 0, let tags = w.tags, w.node_ref_count >= 2, let refs = w.node_refs else { return }
            var hasHighway = false
            for i in 0..<Int(w.tag_count) where tags[i].key != nil && strcmp(tags[i].key, "highway") == 0 {
                hasHighway = true
                break
            }
            guard hasHighway else { return }
            var wayTags = WayTags()
            for i in 0..<Int(w.tag_count) {
                guard let k = tags[i].key, let v = tags[i].value else { continue }
                wayTags.set(String(cString: k), String(cString: v))
            }
            guard let rule = CarProfile.rule(for: wayTags), rule.forward || rule.backward else { return }
            extract.wayIds.append(w.id)
            extract.wayRules.append(rule)
            for i in 0..<Int(w.node_ref_count) { extract.refs.append(refs[i]) }
            extract.wayFirstRef.append(UInt32(extract.refs.count))
        }

        func addRelation(_ relation: UnsafePointer<readosm_relation>) {
            let r = relation.pointee
            extract.totalRelations += 1
            guard r.tag_count > 0, let tags = r.tags else { return }
            var type: String?, restriction: String?, motorcarRestriction: String?, except: String?
            for i in 0..<Int(r.tag_count) {
                guard let k = tags[i].key, let v = tags[i].value else { continue }
                switch String(cString: k) {
                case "type": type = String(cString: v)
                case "restriction": restriction = String(cString: v)
                case "restriction:motorcar", "restriction:motor_vehicle": motorcarRestriction = String(cString: v)
                case "except": except = String(cString: v)
                default: break
                }
            }
            guard type == "restriction" else { return }
            guard let value = motorcarRestriction ?? restriction, let kind = TurnRestrictionKind(osmValue: value) else {
                extract.skippedRestrictions += 1
                return
            }
            if let except, except.split(separator: ";").contains(where: { $0 == "motorcar" || $0 == "motor_vehicle" }) {
                extract.skippedRestrictions += 1
                return
            }
            var from: Int64?, via: Int64?, to: Int64?
            var valid = true
            if let members = r.members {
                for i in 0..<Int(r.member_count) {
                    let m = members[i]
                    let role = m.role.map { String(cString: $0) } ?? ""
                    switch role {
                    case "from":
                        if m.member_type != READOSM_MEMBER_WAY || from != nil { valid = false }
                        from = m.id
                    case "to":
                        if m.member_type != READOSM_MEMBER_WAY || to != nil { valid = false }
                        to = m.id
                    case "via":
                        if m.member_type != READOSM_MEMBER_NODE || via != nil { valid = false }  // via ways are not supported
                        via = m.id
                    default: break
                    }
                }
            }
            guard valid, let from, let via, let to else {
                extract.skippedRestrictions += 1
                return
            }
            extract.restrictions.append(InputRestriction(id: r.id, kind: kind, uTurn: value.contains("u_turn"), fromWay: from, viaNode: via, toWay: to))
        }
    }
}

private func collector(_ p: UnsafeRawPointer?) -> OSMReader.Collector {
    Unmanaged<OSMReader.Collector>.fromOpaque(p!).takeUnretainedValue()
}

private let nodeCallback: readosm_node_callback = { user, node in
    guard let node else { return READOSM_OK }
    collector(user).addNode(node)
    return READOSM_OK
}

private let wayCallback: readosm_way_callback = { user, way in
    guard let way else { return READOSM_OK }
    collector(user).addWay(way)
    return READOSM_OK
}

private let relationCallback: readosm_relation_callback = { user, relation in
    guard let relation else { return READOSM_OK }
    collector(user).addRelation(relation)
    return READOSM_OK
}
