import Foundation
import Geo
@testable import Parties
@testable import PartyClusters
@testable import PartyModel
@testable import PartyStores
import TestSupport
import XCTest

/// A clock tests can move.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var t: Double
    init(_ t: Double) { self.t = t }
    var now: Double {
        get { lock.lock(); defer { lock.unlock() }; return t }
        set { lock.lock(); t = newValue; lock.unlock() }
    }
}

/// The store and the service: durability across restarts, expiry, replacement.
final class PartyServiceTests: XCTestCase {
    let start = 1_700_000_000.0

    func testRestartKeepsEveryAcknowledgedParty() throws {
        let dir = TestPaths.temporaryDirectory("parties").path
        let clock = TestClock(start)
        var expected = [String: Party]()
        do {
            let service = try PartyService(stateDirectory: dir, now: { clock.now })
            for p in RandomParties.make(600, seed: 21, now: start) {
                XCTAssertEqual(try service.put(p), .created)
                expected[p.id] = p
            }
            // Replace some (moved, seats changed), delete some.
            for var p in RandomParties.make(150, seed: 21, now: start) {
                p.seatsTaken = 0
                p.origin = p.origin.offset(eastMeters: 250, northMeters: -120)
                XCTAssertEqual(try service.put(p), .replaced)
                expected[p.id] = p
            }
            for id in expected.keys.sorted().prefix(100) {
                XCTAssertTrue(try service.delete(id: id))
                expected[id] = nil
            }
            XCTAssertFalse(try service.delete(id: "never-there"))
            XCTAssertEqual(service.count, expected.count)
        }
        // Reopen: every acknowledged write is there, nothing else.
        let reopened = try PartyService(stateDirectory: dir, now: { clock.now })
        XCTAssertEqual(reopened.count, expected.count)
        XCTAssertTrue(reopened.rejectedOnLoad.isEmpty)
        for (id, p) in expected { XCTAssertEqual(reopened.party(id: id), p, id) }
        let world = RandomParties.world
        XCTAssertEqual(reopened.clusters(in: world, zoom: 8).reduce(0) { $0 + $1.count }, expected.count)
        let store = try SQLitePartyDatabase(stateDirectory: dir)
        XCTAssertEqual(try store.integrityCheck(), "ok")
        XCTAssertEqual(try store.db.scalarText("PRAGMA journal_mode"), "wal")
        XCTAssertEqual(try store.db.scalarText("PRAGMA synchronous"), "2", "synchronous=FULL is 2")
    }

    func testExpiredPartiesVanishAndArePurged() throws {
        let dir = TestPaths.temporaryDirectory("parties").path
        let clock = TestClock(start)
        let service = try PartyService(stateDirectory: dir, options: PartyServiceOptions(grace: 600, settleWindow: 600, settledRetention: 600, purgeInterval: 0), now: { clock.now })
        let soon = Party(id: "soon", origin: Coordinate(lon: 127.0, lat: 37.5), destination: Coordinate(lon: 127.1, lat: 37.6),
                         departAt: start + 60, seatsTotal: 4, seatsTaken: 1)
        var later = soon
        later.id = "later"
        later.departAt = start + 3600
        try service.put(soon)
        try service.put(later)
        let box = BoundingBox(west: 126.9, south: 37.4, east: 127.1, north: 37.6)
        XCTAssertEqual(service.clusters(in: box, zoom: 10).reduce(0) { $0 + $1.count }, 2)
        // Within the grace period after departure the party is still listed.
        clock.now = start + 60 + 599
        XCTAssertNotNil(service.party(id: "soon"))
        // Past it, it vanishes from every answer at once.
        clock.now = start + 60 + 600
        XCTAssertNil(service.party(id: "soon"))
        XCTAssertEqual(service.clusters(in: box, zoom: 10).reduce(0) { $0 + $1.count }, 1)
        XCTAssertEqual(service.nearby(Coordinate(lon: 127.0, lat: 37.5), radiusMeters: 1000, limit: 10).parties.map(\.party.id), ["later"])
        XCTAssertFalse(try service.delete(id: "soon"))
        // A put of an already expired party is refused.
        XCTAssertThrowsError(try service.put(soon)) { XCTAssertTrue($0 is PartyExpiredError, "\($0)") }
        // Replacing a party with a later departure keeps it alive past the old expiry.
        var moved = later
        moved.departAt = start + 7200
        XCTAssertEqual(try service.put(moved), .replaced)
        clock.now = start + 3600 + 700
        XCTAssertEqual(service.party(id: "later"), moved)
        // The store drops the expired row (on a write, or a purge), and a restart does not load it.
        let store = try SQLitePartyDatabase(stateDirectory: dir)
        XCTAssertEqual(try store.storedCount(), 1)
        clock.now = start + 7200 + 601
        XCTAssertEqual(try service.purgeExpired(), 1)
        XCTAssertEqual(try store.storedCount(), 0)
        XCTAssertEqual(try PartyService(stateDirectory: dir, now: { clock.now }).count, 0)
    }

    func testExpiredRowsAreNotLoadedAfterRestart() throws {
        let dir = TestPaths.temporaryDirectory("parties").path
        let store = try SQLitePartyDatabase(stateDirectory: dir)
        let parties = RandomParties.make(50, seed: 2, now: start)
        try store.put(parties)
        // Restart 14 hours after the first departures: only those still within departure + 30 min load;
        // the store keeps those within the 12-hour settle window (unlisted) and purges the rest.
        let at = start + 14 * 3600
        let service = try PartyService(stateDirectory: dir, now: { at })
        let live = parties.filter { $0.departAt + 1800 > at }
        let kept = parties.filter { $0.departAt + PartyServiceOptions.defaultSettleWindow > at }
        XCTAssertEqual(service.count, live.count)
        XCTAssertLessThan(live.count, kept.count)
        XCTAssertLessThan(kept.count, parties.count)
        XCTAssertEqual(try store.storedCount(), kept.count, "opening purges the rows past the settle window")
    }

    func testValidationRefusesBadParties() throws {
        let t0 = start
        let service = try PartyService(stateDirectory: TestPaths.temporaryDirectory("parties").path, now: { t0 })
        let good = Party(id: "ok_1-A", origin: Coordinate(lon: 127, lat: 37.5), destination: Coordinate(lon: 127.1, lat: 37.6),
                         departAt: start + 600, seatsTotal: 4, seatsTaken: 0, title: "강남역 → 판교")
        XCTAssertEqual(try service.put(good), .created)
        let cases: [(String, (inout Party) -> Void)] = [
            ("id", { $0.id = "" }), ("id", { $0.id = "has space" }), ("id", { $0.id = String(repeating: "a", count: 65) }),
            ("id", { $0.id = "한글" }), ("origin", { $0.origin = Coordinate(lon: 181, lat: 0) }),
            ("origin", { $0.origin = Coordinate(lon: .nan, lat: 0) }), ("destination", { $0.destination = Coordinate(lon: 0, lat: -91) }),
            ("depart_at", { $0.departAt = .infinity }), ("seats_total", { $0.seatsTotal = 0 }), ("seats_total", { $0.seatsTotal = 17 }),
            ("seats_taken", { $0.seatsTaken = -1 }), ("seats_taken", { $0.seatsTaken = 5 }),
            ("title", { $0.title = String(repeating: "가", count: 201) }), ("title", { $0.title = "a\u{7}b" }),
            // One character (grapheme) of 300,000 combining marks: 600 KB.
            ("title", { $0.title = "a" + String(repeating: "\u{301}", count: 300_000) }),
            // One character, 251 code points (maxLength counts code points).
            ("title", { $0.title = "a" + String(repeating: "\u{301}", count: 250) }),
        ]
        for (field, spoil) in cases {
            var p = good
            p.id = "bad"
            spoil(&p)
            XCTAssertThrowsError(try service.put(p), field) { XCTAssertEqual(($0 as? PartyValidationError)?.field, field) }
        }
        XCTAssertEqual(service.count, 1)
        // At the limit (200 code points, 800 bytes): accepted.
        var full = good
        full.id = "full"
        full.title = String(repeating: "\u{1F695}", count: 200)
        XCTAssertEqual(full.title?.unicodeScalars.count, Party.maxTitleLength)
        XCTAssertEqual(full.title?.utf8.count, 800)
        XCTAssertEqual(try service.put(full), .created)
    }

    func testCSVRowsRoundTripAndErrorsNameTheColumn() {
        for p in RandomParties.make(40, seed: 8, now: start) {
            var q = p
            q.title = p.title.map { $0 + ", \"quoted\"" }
            guard case .success(let back) = PartyCSV.party(PartyCSV.row(q)[...]) else { return XCTFail("row of \(q.id) does not parse") }
            XCTAssertEqual(back, q)
        }
        let bad: [(String, String)] = [
            ("a,1,2,3", "expected 8 or 9 columns"), ("a,x,37,127,37,2030-01-01T00:00,4,0", "origin_lon"),
            ("a,127,37,127,37,someday,4,0", "depart_at"), ("a,127,37,127,37,2030-01-01T00:00,four,0", "seats_total"),
            ("a,127,37,127,37,2030-01-01T00:00,4,9", "seats_taken"), ("a,127,37,127,37,2030-01-01T00:00,4,0,\"open", "quoted"),
        ]
        for (row, needle) in bad {
            guard case .failure(let e) = PartyCSV.party(row[...]) else { XCTFail("\(row) parsed"); continue }
            XCTAssertTrue(e.description.contains(needle), "\(row): \(e)")
        }
    }

    func testClusterIDTextForm() {
        let one = ClusterID(zoom: 14, cell: .init(x: 13954, y: 6345))
        XCTAssertEqual(one.description, "14.13954.6345")
        XCTAssertEqual(ClusterID("14.13954.6345"), one)
        let many = ClusterID(zoom: 12, cells: [.init(x: 4, y: 2), .init(x: 3, y: 1), .init(x: 4, y: 1), .init(x: 3, y: 1)])!
        XCTAssertEqual(many.description, "12.3.1.1.0.1.1")
        XCTAssertEqual(ClusterID(many.description), many)
        for bad in ["", "14", "14.1", "21.0.0", "-1.0.0", "14.1.2.3", "14.1.2.0.0", "14.1.2.-1.0", "14.a.2", "14.1.2.999.0", "14.1.2.1.0.1.0", "14..2"] {
            XCTAssertNil(ClusterID(bad), bad)
        }
    }

    /// Ids of up to six further cells near the first are kept packed, longer or wider ones in
    /// an array: both forms give back their cells, text form and equality.
    func testClusterIDPackedAndSpilledForms() {
        var rng = SplitMix64(seed: 7)
        for round in 0..<400 {
            let count = 1 + round % 12
            let spread = round % 3 == 0 ? 300 : 4
            var cells = Set<ClusterID.Cell>()
            while cells.count < count {
                cells.insert(.init(x: 1000 + Int.random(in: -spread...spread, using: &rng), y: 500 + Int.random(in: 0...spread, using: &rng)))
            }
            let sorted = cells.sorted()
            let id = ClusterID(zoom: 15, cells: sorted.shuffled(using: &rng))!
            XCTAssertEqual(id.cells, sorted)
            XCTAssertEqual(id.cellCount, count)
            XCTAssertEqual(id.first, sorted[0])
            XCTAssertEqual(id.others, Array(sorted.dropFirst()))
            XCTAssertEqual(ClusterID(zoom: 15, cells: sorted + sorted), id)
            XCTAssertEqual(Set([id, ClusterID(zoom: 15, cells: sorted)!]).count, 1)
            if sorted.allSatisfy({ abs($0.x - sorted[0].x) <= ClusterID.maxOffset && $0.y - sorted[0].y <= ClusterID.maxOffset }) {
                XCTAssertEqual(ClusterID(id.description), id, id.description)
            }
            if count > 1 {
                XCTAssertNotEqual(ClusterID(zoom: 15, cells: Array(sorted.dropLast()))!, id)
            }
        }
    }
}
