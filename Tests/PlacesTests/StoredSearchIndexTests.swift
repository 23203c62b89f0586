import Foundation
import Geo
import Places
import SQLiteKit
import TestSupport
import XCTest

/// The search index `taxipot import places` stores in the place DB: opened, it is the index
/// derived in memory from the same rows, array for array and answer for answer; a file without
/// it, or with a damaged or stale one, is refused with a message naming the fault and saying to
/// rebuild it, never served and never a crash.
final class StoredSearchIndexTests: XCTestCase {
    func testTheStoredIndexIsTheOneDerivedInMemory() throws {
        let built = try PlacesFixture.get()
        let stored = try PlaceIndex.open(path: built.databasePath)
        let derived = try PlaceIndex.open(path: built.databasePath, storedSearch: false)

        let storedArrays = stored.searchIndexBlobs, derivedArrays = derived.searchIndexBlobs
        XCTAssertEqual(storedArrays.map(\.name), derivedArrays.map(\.name))
        for (s, d) in zip(storedArrays, derivedArrays) {
            XCTAssertEqual(s.bytes.count, d.bytes.count, s.name)
            XCTAssertTrue(s.bytes == d.bytes, "the stored '\(s.name)' differs from the one derived in memory")
        }
        XCTAssertGreaterThan(stored.keyCount, stored.count, "several keys per place")

        // The query set, and for places spread over the DB their name, a prefix, its 초성, its
        // romanisation, a typo, an English name, the name after its district, and filtered reads.
        var queries = try PlaceQuerySet.load(path: TestPaths.dataDir.appendingPathComponent("places/queries.tsv").path)
            .map { PlaceQuery(text: $0.query, near: $0.near, limit: 10) }
        for p in stride(from: 0, to: stored.count, by: stored.count / 60).map({ stored.places[$0] }) {
            let name = Array(p.name)
            queries += [PlaceQuery(text: p.name, limit: 10), PlaceQuery(text: String(name.prefix(2)), limit: 10),
                        PlaceQuery(text: HangulJamo.choseong(p.name), limit: 10), PlaceQuery(text: p.romanizedName, limit: 10),
                        PlaceQuery(text: p.name, category: p.category, limit: 5),
                        PlaceQuery(text: String(name.prefix(2)), near: p.coordinate, radiusMeters: 3_000, limit: 5)]
            if name.count >= 4 { queries.append(PlaceQuery(text: String(name.prefix(name.count / 2) + name.suffix(name.count / 2 - 1)))) }
            if let en = p.englishName { queries.append(PlaceQuery(text: en, limit: 5)) }
            if let district = p.address.split(separator: " ").dropFirst().first { queries.append(PlaceQuery(text: "\(district) \(p.name)", limit: 5)) }
        }
        XCTAssertGreaterThan(queries.count, 400)
        func answer(_ index: PlaceIndex, _ q: PlaceQuery) -> String {
            do {
                let r = try index.search(q)
                return r.places.map { "\($0.place.id) \($0.score) \($0.distanceMeters ?? -1) \(String(describing: $0.precision))" }
                    .joined(separator: "; ") + " next \(r.nextCursor ?? "-")"
            } catch { return "error \(error)" }
        }
        var answered = 0
        for q in queries {
            let a = answer(stored, q)
            XCTAssertEqual(a, answer(derived, q), "'\(q.text)'")
            if !a.hasPrefix("error") && !a.hasPrefix(" next") { answered += 1 }
        }
        XCTAssertGreaterThan(answered, queries.count * 9 / 10, "most queries find places")
    }

    func testADatabaseWithoutTheStoredIndexIsRefused() throws {
        let missing = try changedCopy("places-no-index") { db in try db.execute("DROP TABLE search_index") }
        assertRefused(missing, saying: "no stored search index")
        // A file of the previous format (built before the index was stored) names both formats.
        let older = try changedCopy("places-older") { db in
            try db.execute("DROP TABLE search_index; UPDATE meta SET value = 'taxipot-places-2' WHERE key = 'format'")
        }
        assertRefused(older, saying: "format 'taxipot-places-2', but this taxipot reads 'taxipot-places-3'")
    }

    func testDamagedArraysAreRefused() throws {
        let placeCount = try PlacesFixture.index().count
        let cases: [(String, String, (inout [UInt8]) -> Void)] = [
            ("postings", "gram_offsets runs from 0 to", { $0.removeLast(4) }),
            ("key_start", "'key_start' is", { $0.removeLast(1) }),
            ("symbols", "outside the", { $0.removeLast($0.count / 2) }),
            ("key_length", "the key arrays differ in length", { $0.removeLast(1) }),
            ("key_place", "names place \(placeCount)", { Self.setInt32(&$0, at: 7, to: Int32(placeCount)) }),
            ("postings", "names key -1", { Self.setInt32(&$0, at: 1000, to: -1) }),
            ("gram_codes", "not ascending", { Self.setInt32(&$0, at: 2, to: Self.int32($0, at: 1)) }),
            ("key_weight", "outside (0, 1]", { Self.setInt32(&$0, at: 3, to: Int32(bitPattern: Float.nan.bitPattern)) }),
            ("region_of_place", "regions", { Self.setInt32(&$0, at: 0, to: Int32.max) }),
            ("region_tokens", "newline", { $0.removeLast(1) }),
        ]
        for (name, expected, damage) in cases {
            let path = try changedCopy("places-damaged") { db in try Self.edit(db, name, damage) }
            assertRefused(path, saying: "the stored search index is damaged", expected)
        }
        let gone = try changedCopy("places-lost-array") { db in try db.execute("DELETE FROM search_index WHERE name = 'gram_offsets'") }
        assertRefused(gone, saying: "the array 'gram_offsets' is missing")
    }

    /// Stored keys that this build would not derive (a file built before a change of the key
    /// rules, not rebuilt) are refused: every key of place 0 (always in the sample) weighs less.
    func testAnIndexDerivedByOtherRulesIsRefused() throws {
        let path = try changedCopy("places-stale") { db in
            var places: [UInt8] = []
            try Self.edit(db, "key_place") { places = $0 }
            try Self.edit(db, "key_weight") { weights in
                for k in 0..<(places.count / 4) where Self.int32(places, at: k) == 0 {
                    Self.setInt32(&weights, at: k, to: Int32(bitPattern: Float(0.5).bitPattern))
                }
            }
        }
        assertRefused(path, saying: "derived by other rules than this taxipot's", "search keys")
    }

    // MARK: - Helpers

    /// A copy of the shared place DB changed by `change`, then sealed again as the builder seals
    /// it (so only the checks behind the checksum can refuse it).
    func changedCopy(_ label: String, _ change: (SQLiteDatabase) throws -> Void) throws -> String {
        let path = TestPaths.temporaryDirectory(label).appendingPathComponent("places.db").path
        try FileManager.default.copyItem(atPath: try PlacesFixture.get().databasePath, toPath: path)
        let db = try SQLiteDatabase(path: path)
        try change(db)
        try db.close()
        try PlaceFileChecksum.seal(path: path)
        return path
    }

    func assertRefused(_ path: String, saying phrases: String..., file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try PlaceIndex.open(path: path), file: file, line: line) { e in
            for phrase in phrases + [path, "make data"] {
                XCTAssertTrue("\(e)".contains(phrase), "'\(phrase)' not in: \(e)", file: file, line: line)
            }
        }
    }

    /// Rewrites the stored array `name`.
    static func edit(_ db: SQLiteDatabase, _ name: String, _ change: (inout [UInt8]) -> Void) throws {
        let read = try db.prepare("SELECT data FROM search_index WHERE name = ?")
        read.bind(1, name)
        XCTAssertTrue(try read.step(), "no array '\(name)'")
        var bytes = read.blob(0)
        read.finalize()
        change(&bytes)
        let write = try db.prepare("UPDATE search_index SET data = ? WHERE name = ?")
        write.bind(1, blob: bytes); write.bind(2, name)
        try write.run()
    }

    static func int32(_ bytes: [UInt8], at i: Int) -> Int32 {
        bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 4 * i, as: Int32.self) }
    }

    static func setInt32(_ bytes: inout [UInt8], at i: Int, to v: Int32) {
        withUnsafeBytes(of: v) { for (j, b) in $0.enumerated() { bytes[4 * i + j] = b } }
    }
}
