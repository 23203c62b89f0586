import Foundation
import Geo
import SQLiteKit

/// The `roads` table of the place DB: the named roads address search interpolates along
/// (`RoadNetworkSource`), one row per road, its points as text `lon,lat,metres;…`.
extension PlaceStore {
    static let roadsSchema = """
        CREATE TABLE IF NOT EXISTS roads(name TEXT NOT NULL, districts TEXT NOT NULL, length REAL NOT NULL, points TEXT NOT NULL);
        CREATE INDEX IF NOT EXISTS roads_name ON roads(name);
        """

    package static func insert(_ roads: [NamedRoad], into db: SQLiteDatabase) throws {
        try db.execute(roadsSchema)
        let s = try db.prepare("INSERT INTO roads(name, districts, length, points) VALUES (?,?,?,?)")
        try db.execute("BEGIN IMMEDIATE")
        do {
            for r in roads {
                let points = zip(r.points, r.distances).map { p, d in
                    "\(rounded(p.lon, 1e7)),\(rounded(p.lat, 1e7)),\(rounded(d, 10))"
                }.joined(separator: ";")
                s.bind(1, r.name); s.bind(2, r.districts.joined(separator: ",")); s.bind(3, r.length); s.bind(4, points)
                try s.run()
            }
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    static let numberingSchema = """
        CREATE TABLE IF NOT EXISTS road_numbering(road TEXT PRIMARY KEY, reversed INTEGER NOT NULL, offset REAL NOT NULL, interval REAL NOT NULL);
        """

    /// The calibrated numbering of roads (`AddressCalibration`), by road key.
    package static func insert(_ numbering: [String: RoadNumbering], into db: SQLiteDatabase) throws {
        try db.execute(numberingSchema)
        let s = try db.prepare("INSERT INTO road_numbering(road, reversed, offset, interval) VALUES (?,?,?,?)")
        try db.execute("BEGIN IMMEDIATE")
        do {
            for k in numbering.keys.sorted() {
                let n = numbering[k]!
                s.bind(1, k); s.bind(2, n.reversed ? 1 : 0); s.bind(3, n.offset); s.bind(4, n.interval)
                try s.run()
            }
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// The calibrated numbering of the DB's roads; none for a DB built without a calibration table.
    static func readNumbering(_ db: SQLiteDatabase) throws -> [String: RoadNumbering] {
        guard try hasTable(db, "road_numbering") else { return [:] }
        let s = try db.prepare("SELECT road, reversed, offset, interval FROM road_numbering")
        var out: [String: RoadNumbering] = [:]
        while try s.step() {
            out[s.text(0)] = RoadNumbering(reversed: s.int(1) != 0, offset: s.double(2), interval: s.double(3))
        }
        return out
    }

    private static func rounded(_ v: Double, _ scale: Double) -> Double { (v * scale).rounded() / scale }

    /// The roads of the DB; none for a DB built without the node-link network.
    static func readRoads(_ db: SQLiteDatabase) throws -> [NamedRoad] {
        guard try hasTable(db, "roads") else { return [] }
        let s = try db.prepare("SELECT name, districts, points FROM roads ORDER BY rowid")
        var out: [NamedRoad] = []
        while try s.step() {
            var points: [Coordinate] = [], distances: [Double] = []
            for p in s.text(2).split(separator: ";") {
                let f = p.split(separator: ",")
                guard f.count == 3, let lon = Double(f[0]), let lat = Double(f[1]), let d = Double(f[2]) else {
                    throw PlaceDatabaseError("\(db.path): road \(s.text(0)) has a malformed point '\(p.prefix(60))'")
                }
                points.append(Coordinate(lon: lon, lat: lat))
                distances.append(d)
            }
            guard points.count >= 2 else { throw PlaceDatabaseError("\(db.path): road \(s.text(0)) has fewer than two points") }
            out.append(NamedRoad(name: s.text(0), districts: s.text(1).split(separator: ",").map(String.init),
                                 points: points, distances: distances))
        }
        return out
    }
}
