import CSV
import Foundation
import Geo
import Places
import SQLiteKit

/// Builds the place DB (`taxipot import places`) from the sources in a data folder, and adds a
/// user's own places from a CSV file to an existing DB.
public enum PlaceDatabaseBuilder {
    /// What a build did.
    public struct BuildReport: Sendable {
        /// Places written, by category.
        public let placesByCategory: [String: Int]
        /// Records read, by source file.
        public let recordsBySource: [String: Int]
        /// Records merged into a same-name neighbour within 50 m.
        public let mergedDuplicates: Int
        /// OSM station stops folded into the official station of the same name.
        public let foldedOSMStations: Int
        /// Extra names given to landmarks from the bus stops named after them.
        public let landmarkAliases: Int
        /// Named road nodes left out as intersections: further nodes of one junction, nodes
        /// within 50 m of a same-name place of another category, and `X앞` nodes by the place X
        /// (which stand for them).
        public let foldedIntersections: Int
        /// Rows skipped, each naming the file and line.
        public let warnings: [String]

        public var placeCount: Int { placesByCategory.values.reduce(0, +) }
    }

    /// Builds a new place DB at `outputPath` from `dataDirectory/places/*` (the file is
    /// written beside the target and renamed over it when complete).
    public static func build(dataDirectory: String, outputPath: String) throws(PlaceDatabaseError) -> BuildReport {
        let dir = (dataDirectory as NSString).appendingPathComponent("places")
        func path(_ f: String) -> String { (dir as NSString).appendingPathComponent(f) }
        for f in PlaceSources.allFiles where !FileManager.default.fileExists(atPath: path(f)) {
            throw PlaceDatabaseError("\(path(f)): missing place source (expected in \(dir))")
        }
        do {
            var warnings: [String] = []
            let divisions = try DivisionSource.read(path: path(PlaceSources.divisionsFile), warnings: &warnings)
            let boundaries = try BoundaryCodec.readGeoJSON(path: path(PlaceSources.boundariesFile))
            let locator = AdminLocator(divisions: divisions, boundaries: boundaries)

            var stations = try StationSource.stations(nationalPath: path(PlaceSources.railStationsFile),
                                                      masterPath: path(PlaceSources.seoulStationMasterFile),
                                                      locator: locator, warnings: &warnings)
            let stationCount = stations.count
            let osm = try OSMPOISource.read(path: path(PlaceSources.osmPOIsFile), warnings: &warnings)
            let (osmKept, folded) = PlaceMerger.foldOSMStations(stations: &stations, osm: osm)
            let bus = try PlaceSources.busStops(path: path(PlaceSources.busStopsFile), warnings: &warnings)
            let tourist = try PlaceSources.touristSites(path: path(PlaceSources.touristSitesFile), warnings: &warnings)

            var others = stations + bus + tourist + osmKept
            for i in others.indices { locate(&others[i], locator) }
            var (merged, mergedAway) = PlaceMerger.mergeSameName(others)
            let landmarkAliases = PlaceMerger.aliasLandmarksFromBusStops(&merged)
            var intersections = try RoadNetworkSource.intersectionsIfPresent(dataDirectory: dataDirectory, warnings: &warnings)
            for i in intersections.indices { locate(&intersections[i], locator) }
            let foldedIntersections = PlaceMerger.addIntersections(intersections, to: &merged)
            let all = PlaceSources.divisionPlaces(divisions) + merged

            let tmp = outputPath + ".building"
            let db = try PlaceStore.create(at: tmp)
            try PlaceStore.insert(all, into: db)
            try PlaceStore.insert(divisions, boundaries: boundaries, into: db)
            try PlaceStore.writeSearchIndex(db)
            let roads = try RoadNetworkSource.roadsIfPresent(dataDirectory: dataDirectory, locator: locator, warnings: &warnings)
            try PlaceStore.insert(roads, into: db)
            try PlaceStore.insert(try RoadNetworkSource.calibrationIfPresent(dataDirectory: dataDirectory, roads: roads, warnings: &warnings), into: db)
            try db.execute("ANALYZE")
            try db.close()
            try PlaceFileChecksum.seal(path: tmp)
            try FileManager.default.createDirectory(atPath: (outputPath as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            if FileManager.default.fileExists(atPath: outputPath) { try FileManager.default.removeItem(atPath: outputPath) }
            try FileManager.default.moveItem(atPath: tmp, toPath: outputPath)

            var byCategory: [String: Int] = [:]
            for p in all { byCategory[p.category, default: 0] += 1 }
            return BuildReport(
                placesByCategory: byCategory,
                recordsBySource: [PlaceSources.divisionsFile: divisions.count,
                                  PlaceSources.boundariesFile: boundaries.count,
                                  "\(PlaceSources.railStationsFile) + \(PlaceSources.seoulStationMasterFile)": stationCount,
                                  PlaceSources.busStopsFile: bus.count, PlaceSources.touristSitesFile: tourist.count,
                                  PlaceSources.osmPOIsFile: osm.count,
                                  "\(RoadNetworkSource.directory)/\(RoadNetworkSource.nodeFile) (named)": intersections.count],
                mergedDuplicates: mergedAway, foldedOSMStations: folded, landmarkAliases: landmarkAliases,
                foldedIntersections: foldedIntersections,
                warnings: warnings)
        } catch {
            throw PlaceDatabaseError.wrap(error)
        }
    }

    /// The service is Seoul's first: places in Seoul rank a little above their namesakes elsewhere.
    static let seoulBonus = 0.02
    static let seoulCode = PlaceSources.seoulCode

    /// Fills a record's division code and, when it has none, its address from the divisions.
    static func locate(_ r: inout PlaceRecord, _ locator: AdminLocator) {
        guard let area = locator.locate(r.coordinate) else { return }
        r.regionCode = area.code
        if r.address.isEmpty { r.address = area.fullName }
        if area.code.hasPrefix(seoulCode) { r.importance += seoulBonus }
    }

    /// Which columns of a user CSV hold what.
    public struct UserCSVOptions: Sendable {
        public var csvPath: String
        public var nameColumn: String
        public var latColumn: String
        public var lonColumn: String
        /// Optional column with an address to show (else the division is used).
        public var addressColumn: String?
        /// The category of every imported place ("user" by default; a–z, 0–9, `_`).
        public var category: String
        /// The file's encoding; nil tells UTF-8 from CP949 by the bytes.
        public var encoding: InputEncoding? = nil
        /// The field separator (a comma by default).
        public var delimiter: UInt8 = 0x2C

        public init(csvPath: String, nameColumn: String, latColumn: String, lonColumn: String,
                    addressColumn: String? = nil, category: String = PlaceCategory.user)
        {
            self.csvPath = csvPath
            self.nameColumn = nameColumn
            self.latColumn = latColumn
            self.lonColumn = lonColumn
            self.addressColumn = addressColumn
            self.category = category
        }
    }

    /// What a user import did: rows added and rows refused (each naming its line and fault).
    public struct UserImportReport: Sendable {
        public let imported: Int
        public let failures: [String]
    }

    /// Adds the rows of a user CSV to the place DB at `databasePath`. Rows without a name or
    /// with a bad position are refused (and listed); the others are added. Importing the same
    /// file again replaces its rows rather than duplicating them.
    public static func importUserCSV(_ options: UserCSVOptions, into databasePath: String) throws(PlaceDatabaseError) -> UserImportReport {
        guard PlaceCategory.isValidName(options.category) else {
            throw PlaceDatabaseError("category '\(options.category)' must be 1–32 of a–z, 0–9 and _")
        }
        do {
            let table = try CSVTable(path: options.csvPath, encoding: options.encoding, delimiter: options.delimiter)
            let cName = try table.column(options.nameColumn), cLat = try table.column(options.latColumn)
            let cLon = try table.column(options.lonColumn)
            let cAddress = try options.addressColumn.map { c throws(CSVTable.ReadError) in try table.column(c) }
            // Changed in a copy, sealed, then renamed over the original: never a half-sealed file.
            let tmp = databasePath + ".importing"
            for suffix in ["", "-journal"] { unlink(tmp + suffix) }
            try FileManager.default.copyItem(atPath: databasePath, toPath: tmp)
            defer { for suffix in ["", "-journal"] { unlink(tmp + suffix) } }
            let db = try PlaceStore.open(path: tmp, readOnly: false)
            let locator = AdminLocator(divisions: try PlaceStore.readDivisions(db), boundaries: try PlaceStore.readBoundaries(db))
            let fileTag = (options.csvPath as NSString).lastPathComponent
            var records: [PlaceRecord] = []
            var failures: [String] = []
            for row in table.rows {
                let name = row[cName]
                let where_ = "\(options.csvPath):\(row.line)"
                guard !name.isEmpty, !SearchText.fold(name).isEmpty else {
                    failures.append("\(where_): column '\(options.nameColumn)' is empty"); continue
                }
                guard name.count <= 200 else { failures.append("\(where_): the name is longer than 200 characters"); continue }
                guard let lat = NumberParsing.finiteDouble(row[cLat]), abs(lat) <= 90 else {
                    failures.append("\(where_): column '\(options.latColumn)' is not a latitude: '\(row[cLat].prefix(40))'"); continue
                }
                guard let lon = NumberParsing.finiteDouble(row[cLon]), abs(lon) <= 180 else {
                    failures.append("\(where_): column '\(options.lonColumn)' is not a longitude: '\(row[cLon].prefix(40))'"); continue
                }
                var r = PlaceRecord(id: "user:\(PlaceSources.stableHash("\(fileTag)|\(name)|\(row[cLat])|\(row[cLon])"))",
                                    name: name, category: options.category, address: cAddress.map { row[$0] } ?? "",
                                    lon: lon, lat: lat, importance: PlaceSources.defaultImportance(PlaceCategory.user),
                                    englishName: nil, source: "user:\(fileTag)")
                locate(&r, locator)
                records.append(r)
            }
            try PlaceStore.insert(records, into: db)
            try PlaceStore.writeSearchIndex(db)
            try db.close()
            try PlaceFileChecksum.seal(path: tmp)
            guard rename(tmp, databasePath) == 0 else {
                throw PlaceDatabaseError("\(databasePath): cannot replace it (\(String(cString: strerror(errno))))")
            }
            return UserImportReport(imported: records.count, failures: failures)
        } catch {
            throw PlaceDatabaseError.wrap(error)
        }
    }
}
