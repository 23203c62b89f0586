import SQLiteKit

/// The `search_index` table of the place DB: `SearchStructures` as one named blob per array,
/// each the array's values back to back in little-endian order (the byte order of every
/// platform taxipot builds on, as the graph file's); `region_tokens` is UTF-8 text, each
/// region's names separated by spaces and ended by a newline (folded names hold neither).
extension PlaceStore {
    /// Derives the search structures of the DB's places (read as `PlaceIndex.open` reads them)
    /// and stores them, replacing those stored before. Run after any change of the places.
    package static func writeSearchIndex(_ db: SQLiteDatabase) throws {
        let rows = try readPlaces(db)
        let divisionsByCode = AdminLocator(divisions: try readDivisions(db), boundaries: []).divisionsByCode
        let blobs = SearchStructures(rows: rows, divisionsByCode: divisionsByCode).blobs
        let s = try db.prepare("INSERT INTO search_index(name, data) VALUES (?, ?)")
        try db.execute("BEGIN IMMEDIATE")
        do {
            try db.execute("DELETE FROM search_index")
            for (name, bytes) in blobs {
                s.bind(1, name); s.bind(2, blob: bytes)
                try s.run()
            }
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// The stored search structures of `rows`, checked: a file without them, with a damaged
    /// array or derived by other rules than this build's is refused, saying to rebuild it.
    static func readSearchIndex(_ db: SQLiteDatabase, rows: [PlaceRow], divisionsByCode: [String: Division]) throws -> SearchStructures {
        func refuse(_ reason: String) -> PlaceDatabaseError { PlaceDatabaseError("\(db.path): \(reason); rebuild it with 'make data'") }
        guard try hasTable(db, "search_index") else {
            throw refuse("the place database has no stored search index (table search_index; built by an older taxipot)")
        }
        var blobs: [String: [UInt8]] = [:]
        let s = try db.prepare("SELECT name, data FROM search_index")
        while try s.step() { blobs[s.text(0)] = s.blob(1) }
        let search: SearchStructures
        do { search = try SearchStructures(blobs: blobs, placeCount: rows.count) } catch {
            throw refuse("the stored search index is damaged: \(error.message)")
        }
        if let stale = search.staleness(rows: rows, divisionsByCode: divisionsByCode) {
            throw refuse("the stored search index was derived by other rules than this taxipot's (\(stale))")
        }
        return search
    }

    /// True when the DB has a table of this name.
    static func hasTable(_ db: SQLiteDatabase, _ name: String) throws -> Bool {
        let s = try db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?")
        s.bind(1, name)
        return try s.step() && s.int(0) > 0
    }
}

extension SearchStructures {
    /// The arrays as the `search_index` table stores them, by name.
    var blobs: [(name: String, bytes: [UInt8])] {
        func bytes<T: BitwiseCopyable>(_ a: [T]) -> [UInt8] { a.withUnsafeBytes { Array($0) } }
        return [("symbols", bytes(index.symbols)), ("key_start", bytes(index.keyStart)), ("key_length", bytes(index.keyLength)),
                ("key_place", bytes(index.keyPlace)), ("key_weight", bytes(index.keyWeight)), ("gram_codes", bytes(index.gramCodes)),
                ("gram_offsets", bytes(index.gramOffsets)), ("postings", bytes(index.postings)),
                ("region_of_place", bytes(regionOfPlace)),
                ("region_tokens", Array(regionTokens.map { $0.joined(separator: " ") + "\n" }.joined().utf8))]
    }

    /// The structures from the stored arrays of a DB holding `placeCount` places; throws naming
    /// the first missing or malformed array or the first broken invariant (`SearchIndex.damage`).
    init(blobs: [String: [UInt8]], placeCount: Int) throws(PlaceDatabaseError) {
        func values<T: BitwiseCopyable>(_ name: String, _: T.Type) throws(PlaceDatabaseError) -> [T] {
            guard let bytes = blobs[name] else { throw PlaceDatabaseError("the array '\(name)' is missing") }
            let width = MemoryLayout<T>.stride
            guard bytes.count % width == 0 else {
                throw PlaceDatabaseError("'\(name)' is \(bytes.count) bytes, not a whole number of \(width)-byte values")
            }
            return [T](unsafeUninitializedCapacity: bytes.count / width) { buffer, count in
                bytes.withUnsafeBytes { UnsafeMutableRawBufferPointer(buffer).copyMemory(from: $0) }
                count = bytes.count / width
            }
        }
        let index = SearchIndex(symbols: try values("symbols", UInt8.self), keyStart: try values("key_start", Int32.self),
                                keyLength: try values("key_length", UInt8.self), keyPlace: try values("key_place", Int32.self),
                                keyWeight: try values("key_weight", Float.self), gramCodes: try values("gram_codes", UInt32.self),
                                gramOffsets: try values("gram_offsets", Int32.self), postings: try values("postings", Int32.self))
        if let damage = index.damage(placeCount: placeCount) { throw PlaceDatabaseError(damage) }
        let regionOfPlace = try values("region_of_place", Int32.self)
        let text = try values("region_tokens", UInt8.self)
        guard text.isEmpty || text.last == 0x0A else { throw PlaceDatabaseError("'region_tokens' does not end with a newline") }
        let regionTokens = String(decoding: text, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            .map { $0.split(separator: " ").map(String.init) }
        guard regionOfPlace.count == placeCount else {
            throw PlaceDatabaseError("'region_of_place' has \(regionOfPlace.count) entries for \(placeCount) places")
        }
        if let p = regionOfPlace.firstIndex(where: { $0 < -1 || Int($0) >= regionTokens.count }) {
            throw PlaceDatabaseError("place \(p) is in region \(regionOfPlace[p]), but there are \(regionTokens.count) regions")
        }
        self.init(index: index, regionOfPlace: regionOfPlace, regionTokens: regionTokens)
    }
}
