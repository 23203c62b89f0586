import Foundation
import Geo
import PartyModel

/// A party near a point, with its great-circle distance.
public struct NearbyParty: Sendable, Hashable {
    /// The party.
    public let party: Party
    /// Metres from the search centre to the party's origin (haversine).
    public let distance: Double
}

/// Where a nearby listing stopped: the (distance, departure, id) of the last party returned.
///
/// Text form: the bit patterns of the two numbers in hex, then the id, joined by `-`
/// (ids may themselves contain `-`; they come last).
public struct NearbyCursor: Sendable, Hashable, CustomStringConvertible {
    /// The last party's distance (m), departure and id.
    public let distance: Double
    public let departAt: Double
    public let id: String

    public init(distance: Double, departAt: Double, id: String) {
        self.distance = distance
        self.departAt = departAt
        self.id = id
    }

    public var description: String {
        String(distance.bitPattern, radix: 16) + "-" + String(departAt.bitPattern, radix: 16) + "-" + id
    }

    /// Parses the text form; nil when malformed.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].utf8.count <= 16, parts[1].utf8.count <= 16,
              let d = UInt64(parts[0], radix: 16), let t = UInt64(parts[1], radix: 16),
              Party.isValidID(parts[2])
        else { return nil }
        let distance = Double(bitPattern: d), departAt = Double(bitPattern: t)
        guard distance.isFinite, departAt.isFinite else { return nil }
        self.init(distance: distance, departAt: departAt, id: String(parts[2]))
    }

    /// True when `item` comes after this cursor in (distance, departure, id) order.
    func precedes(_ item: NearbyParty) -> Bool {
        if item.distance != distance { return item.distance > distance }
        if item.party.departAt != departAt { return item.party.departAt > departAt }
        return item.party.id > id
    }
}

extension PartyIndex {
    /// Parties whose origin lies within `radiusMeters` of `center` and that pass `filter`,
    /// nearest first, then earliest departure, then id; at most `limit` of them after `cursor`.
    /// Also returns the cursor for the next page, nil when this page is the last.
    public func nearby(_ center: Coordinate, radiusMeters: Double, filter: PartyFilter = PartyFilter(),
                       limit: Int, after cursor: NearbyCursor? = nil) -> (parties: [NearbyParty], next: NearbyCursor?)
    {
        guard center.isValid, radiusMeters.isFinite, radiusMeters >= 0, limit > 0 else { return ([], nil) }
        // A lon/lat box around the circle (its latitude span at the pole-ward edge).
        let dLat = radiusMeters / earthRadiusMeters * 180 / .pi
        let north = min(center.lat + dLat, 90), south = max(center.lat - dLat, -90)
        let widest = max(abs(north), abs(south))
        let cosLat = cos(min(widest, 89.9) * .pi / 180)
        let dLon = min(180, radiusMeters / (earthRadiusMeters * cosLat) * 180 / .pi)
        let box = BoundingBox(west: max(-180, center.lon - dLon), south: south, east: min(180, center.lon + dLon), north: north)

        var candidates = [Int32]()
        for range in cellRanges(box, zoom: PartyIndex.maxZoom) {
            appendSlots(inZoom20Cells: range.xs, range.ys, into: &candidates)
        }
        var found = [NearbyParty]()
        for s in candidates {
            let slot = slots[Int(s)]
            guard filter.matches(departAt: slot.departAt, seatsLeft: Int(slot.seatsLeft)), let p = party(slot: s) else { continue }
            let d = center.distance(to: p.origin)
            guard d <= radiusMeters else { continue }
            let item = NearbyParty(party: p, distance: d)
            if let cursor, !cursor.precedes(item) { continue }
            found.append(item)
        }
        found.sort { a, b in
            if a.distance != b.distance { return a.distance < b.distance }
            if a.party.departAt != b.party.departAt { return a.party.departAt < b.party.departAt }
            return a.party.id < b.party.id
        }
        guard found.count > limit else { return (found, nil) }
        let page = Array(found.prefix(limit))
        let last = page[page.count - 1]
        return (page, NearbyCursor(distance: last.distance, departAt: last.party.departAt, id: last.party.id))
    }

    /// Appends every party whose zoom-20 cell lies in `xs` × `ys` to `out`.
    func appendSlots(inZoom20Cells xs: ClosedRange<Int>, _ ys: ClosedRange<Int>, into out: inout [Int32]) {
        let top = PartyIndex.maxZoom
        for y in (ys.lowerBound >> top)...(ys.upperBound >> top) where y < rootsPerAxis {
            for x in (xs.lowerBound >> top)...(xs.upperBound >> top) where x < rootsPerAxis {
                let n = roots[y * rootsPerAxis + x]
                if n >= 0 { visitSlots(n, depth: 0, x: x, y: y, xs: xs, ys: ys, into: &out) }
            }
        }
    }

    private func visitSlots(_ n: Int32, depth: Int, x: Int, y: Int, xs: ClosedRange<Int>, ys: ClosedRange<Int>,
                            into out: inout [Int32])
    {
        let shift = PartyIndex.maxZoom - depth
        let lox = x << shift, hix = ((x + 1) << shift) - 1
        let loy = y << shift, hiy = ((y + 1) << shift) - 1
        guard hix >= xs.lowerBound, lox <= xs.upperBound, hiy >= ys.lowerBound, loy <= ys.upperBound else { return }
        let nd = node(depth, n)
        if nd.first >= 0 {
            var s = nd.first
            while s >= 0 {
                let slot = slots[Int(s)]
                if xs.contains(Int(slot.cellX)) && ys.contains(Int(slot.cellY)) { out.append(s) }
                s = slot.next
            }
            return
        }
        if lox >= xs.lowerBound && hix <= xs.upperBound && loy >= ys.lowerBound && hiy <= ys.upperBound {
            appendSlots(under: n, depth: depth, into: &out)
            return
        }
        for q in 0..<4 {
            let c = nd.child(q)
            if c >= 0 { visitSlots(c, depth: depth + 1, x: x * 2 + (q & 1), y: y * 2 + (q >> 1), xs: xs, ys: ys, into: &out) }
        }
    }
}
