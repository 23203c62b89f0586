import Foundation
import Geo
import SQLiteKit

/// A place DB that cannot be built, opened or read: the message names the file and the fault.
public struct PlaceDatabaseError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
    public init(_ message: String) { self.message = message }

    /// Any error as a place-DB error (its description kept).
    package static func wrap(_ error: any Error) -> PlaceDatabaseError {
        (error as? PlaceDatabaseError) ?? PlaceDatabaseError("\(error)")
    }
}

/// One row of the place table as the builder assembles it.
package struct PlaceRecord: Sendable {
    package var id: String
    package var name: String
    package var category: String
    package var address: String
    package var lon: Double
    package var lat: Double
    package var importance: Double
    package var englishName: String?
    /// Other names the place is found by (a station's sub-name, an OSM Korean name, …).
    package var aliases: [String] = []
    /// The legal code of the division holding the place (8-digit 읍면동 when known).
    package var regionCode: String = ""
    package var detail: String = ""
    /// Where the row came from (file name, or "user:<file>").
    package var source: String

    package init(id: String, name: String, category: String, address: String, lon: Double, lat: Double, importance: Double,
                 englishName: String?, aliases: [String] = [], regionCode: String = "", detail: String = "", source: String) {
        self.id = id; self.name = name; self.category = category; self.address = address; self.lon = lon; self.lat = lat
        self.importance = importance; self.englishName = englishName; self.aliases = aliases; self.regionCode = regionCode
        self.detail = detail; self.source = source
    }

    package var coordinate: Coordinate { Coordinate(lon: lon, lat: lat) }

    package var place: Place {
        Place(id: id, name: name, category: category, address: address, lon: lon, lat: lat,
              importance: importance, englishName: englishName, romanizedName: Romanization.displayForm(name),
              detail: detail)
    }
}

/// A place as the place table stores it: the place, the other names it is found by and the
/// code of its division.
package typealias PlaceRow = (place: Place, aliases: [String], regionCode: String)

/// The SQLite layout of the place DB and its reading and writing.
///
/// Tables: `meta(key, value)`, `places(id, name, category, address, lon, lat, importance,
/// name_en, name_rr, aliases, region_code, detail, source)`, `divisions(code, level, name,
/// full_name, lon, lat, inner_lon, inner_lat, min_lon, min_lat, max_lon, max_lat, area_km2)`,
/// `boundaries(code, level, rings)` (polygons as blobs) and `search_index(name, data)` (the
/// search structures derived from the places, `PlaceStore+SearchIndex.swift`).
package enum PlaceStore {
    /// Bump it whenever the tables, their columns or the stored search index's arrays change: a
    /// file of another format is refused with a message to rebuild it. (A change of the rules
    /// deriving the search index needs no bump: see `SearchStructures`.)
    package static let formatVersion = "taxipot-places-3"
    /// Separator of the `aliases` column.
    package static let aliasSeparator: Character = "|"

    package static let schema = """
        CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE places(
            id TEXT PRIMARY KEY, name TEXT NOT NULL, category TEXT NOT NULL, address TEXT NOT NULL,
            lon REAL NOT NULL, lat REAL NOT NULL, importance REAL NOT NULL,
            name_en TEXT, name_rr TEXT NOT NULL, aliases TEXT NOT NULL DEFAULT '',
            region_code TEXT NOT NULL DEFAULT '', detail TEXT NOT NULL DEFAULT '', source TEXT NOT NULL);
        CREATE INDEX places_category ON places(category);
        CREATE INDEX places_name ON places(name);
        CREATE TABLE divisions(
            code TEXT PRIMARY KEY, level TEXT NOT NULL, name TEXT NOT NULL, full_name TEXT NOT NULL,
            lon REAL NOT NULL, lat REAL NOT NULL, inner_lon REAL NOT NULL, inner_lat REAL NOT NULL,
            min_lon REAL NOT NULL, min_lat REAL NOT NULL, max_lon REAL NOT NULL, max_lat REAL NOT NULL,
            area_km2 REAL NOT NULL);
        CREATE TABLE boundaries(code TEXT PRIMARY KEY, level TEXT NOT NULL, rings BLOB NOT NULL);
        CREATE TABLE search_index(name TEXT PRIMARY KEY, data BLOB);
        """

    /// A new, empty place DB at `path` (a file already there is replaced).
    package static func create(at path: String) throws -> SQLiteDatabase {
        for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let db = try SQLiteDatabase(path: path)
        try db.execute("PRAGMA journal_mode=DELETE; PRAGMA synchronous=OFF;")
        try db.execute(schema)
        let s = try db.prepare("INSERT INTO meta(key, value) VALUES (?, ?)")
        s.bind(1, "format"); s.bind(2, formatVersion); try s.run()
        return db
    }

    /// Opens an existing place DB, checking its checksum (`PlaceFileChecksum`) and format.
    package static func open(path: String, readOnly: Bool) throws -> SQLiteDatabase {
        guard FileManager.default.fileExists(atPath: path) else {
            throw PlaceDatabaseError("\(path): no place database here (build one with 'taxipot import places --data data -o \(path)')")
        }
        try PlaceFileChecksum.verify(path: path)
        let db = try SQLiteDatabase(path: path, readOnly: readOnly)
        let format: String
        do {
            format = try db.scalarText("SELECT value FROM meta WHERE key = 'format'")
        } catch {
            throw PlaceDatabaseError("\(path): not a place database (\(error))")
        }
        guard format == formatVersion else {
            throw PlaceDatabaseError("\(path): place database format '\(format)', but this taxipot reads '\(formatVersion)' "
                + "(the file was built by another version); rebuild it with 'make data'")
        }
        return db
    }

    package static func insert(_ places: [PlaceRecord], into db: SQLiteDatabase) throws {
        let s = try db.prepare("""
            INSERT OR REPLACE INTO places(id, name, category, address, lon, lat, importance, name_en, name_rr,
                aliases, region_code, detail, source) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)
            """)
        try db.execute("BEGIN IMMEDIATE")
        do {
            for p in places {
                s.bind(1, p.id); s.bind(2, p.name); s.bind(3, p.category); s.bind(4, p.address)
                s.bind(5, p.lon); s.bind(6, p.lat); s.bind(7, p.importance); s.bind(8, p.englishName)
                s.bind(9, Romanization.displayForm(p.name))
                s.bind(10, p.aliases.map { $0.replacingOccurrences(of: "|", with: " ") }.joined(separator: "|"))
                s.bind(11, p.regionCode); s.bind(12, p.detail); s.bind(13, p.source)
                try s.run()
            }
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    package static func insert(_ divisions: [Division], boundaries: [Boundary], into db: SQLiteDatabase) throws {
        let s = try db.prepare("INSERT INTO divisions VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)")
        let b = try db.prepare("INSERT INTO boundaries(code, level, rings) VALUES (?,?,?)")
        try db.execute("BEGIN IMMEDIATE")
        do {
            for d in divisions {
                s.bind(1, d.code); s.bind(2, d.level); s.bind(3, d.name); s.bind(4, d.fullName)
                s.bind(5, d.centroid.lon); s.bind(6, d.centroid.lat); s.bind(7, d.inner.lon); s.bind(8, d.inner.lat)
                s.bind(9, d.bbox.west); s.bind(10, d.bbox.south); s.bind(11, d.bbox.east); s.bind(12, d.bbox.north)
                s.bind(13, d.areaKm2)
                try s.run()
            }
            for x in boundaries {
                b.bind(1, x.code); b.bind(2, x.level); b.bind(3, blob: BoundaryCodec.encode(x.area))
                try b.run()
            }
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// Every place, ordered by id (so the in-memory index is the same on every open).
    package static func readPlaces(_ db: SQLiteDatabase) throws -> [PlaceRow] {
        let s = try db.prepare("""
            SELECT id, name, category, address, lon, lat, importance, name_en, name_rr, aliases, region_code, detail
            FROM places ORDER BY id
            """)
        var out: [(Place, [String], String)] = []
        while try s.step() {
            let aliases = s.text(9).split(separator: aliasSeparator).map(String.init)
            let p = Place(id: s.text(0), name: s.text(1), category: s.text(2), address: s.text(3), lon: s.double(4),
                          lat: s.double(5), importance: s.double(6), englishName: s.optionalText(7),
                          romanizedName: s.text(8), detail: s.text(11))
            out.append((p, aliases, s.text(10)))
        }
        return out
    }

    package static func readDivisions(_ db: SQLiteDatabase) throws -> [Division] {
        let s = try db.prepare("SELECT * FROM divisions ORDER BY code")
        var out: [Division] = []
        while try s.step() {
            out.append(Division(code: s.text(0), level: s.text(1), name: s.text(2), fullName: s.text(3),
                                centroid: Coordinate(lon: s.double(4), lat: s.double(5)),
                                inner: Coordinate(lon: s.double(6), lat: s.double(7)),
                                bbox: BoundingBox(west: s.double(8), south: s.double(9), east: s.double(10), north: s.double(11)),
                                areaKm2: s.double(12)))
        }
        return out
    }

    package static func readBoundaries(_ db: SQLiteDatabase) throws -> [Boundary] {
        let s = try db.prepare("SELECT code, level, rings FROM boundaries ORDER BY code")
        var out: [Boundary] = []
        while try s.step() {
            guard let area = BoundaryCodec.decode(s.blob(2)) else {
                throw PlaceDatabaseError("\(db.path): boundary \(s.text(0)) has a malformed polygon blob")
            }
            out.append(Boundary(code: s.text(0), level: s.text(1), area: area))
        }
        return out
    }
}
