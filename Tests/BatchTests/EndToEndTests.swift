import CSV
import Geo
import Foundation
import TaxiPot
import TestSupport
import XCTest

/// The batch tool on real data: the central-Seoul road graph, the place DB and the Seoul fares.
final class EndToEndTests: XCTestCase {
    func run(_ text: String, workers: Int = 2, chunkRows: Int = 256) throws -> ([[String]], BatchSummary, [UInt8]) {
        let runner = try BatchRunner(source: MemorySource(text, chunkSize: 4096),
                                     options: BatchOptions(workers: workers, chunkRows: chunkRows, defaultDepartAt: SeoulTime.parse("2024-05-08T12:00")!))
        let sink = MemorySink()
        let summary = try runner.run(estimator: try SeoulDataset.estimator(), sink: sink)
        return (try parseCSV(sink.text), summary, sink.bytes)
    }

    func testRowsArePricedAsTheQuoteEngineDoes() throws {
        let d = SeoulDataset.self
        let trips: [(Coordinate, Coordinate, String, Int, String)] = [
            (d.jonggak, d.seoulStation, "2024-05-08T09:00", 1, "mid"),
            (d.jonggak, d.itaewon, "2024-05-08T23:30", 3, "mid"),
            (d.seoulStation, d.jongno5ga, "2024-05-08T14:10", 2, "deluxe"),
            (d.gwanghwamun, d.itaewon, "2024-05-09T02:30", 4, "mid"),
        ]
        var text = "name,origin_lon,origin_lat,dest_lon,dest_lat,depart_at,riders,taxi_class\n"
        for (i, t) in trips.enumerated() {
            text += "trip \(i),\(t.0.lon),\(t.0.lat),\(t.1.lon),\(t.1.lat),\(t.2),\(t.3),\(t.4)\n"
        }
        let (rows, summary, _) = try run(text)
        XCTAssertEqual(summary.rowsOK, trips.count, summary.report)
        XCTAssertEqual(summary.exitCode, 0)
        let quotes = try SeoulDataset.dataset().quotes
        for (i, t) in trips.enumerated() {
            let row = rows[i + 1]
            XCTAssertEqual(row[0], "trip \(i)")
            let q = try quotes.quote(QuoteRequest(origin: t.0, destination: t.1, riders: t.3, departure: SeoulTime.parse(t.2)!, taxiClass: t.4))
            let expected = [String(Int(q.route.distanceMeters.rounded())), String(Int(q.route.durationSeconds.rounded())),
                            String(q.fare.totalKrw), String(q.perPersonKrw), String(q.fare.nightKrw), q.schedule.id, "", "", ""]
            XCTAssertEqual(Array(row[8...]), expected, "row \(i)")
            // And the numbers make sense for a Seoul taxi.
            let distance = Double(row[8])!, fare = Int(row[10])!, perPerson = Int(row[11])!
            XCTAssertGreaterThan(distance, t.0.distance(to: t.1), "a road route is longer than the straight line")
            XCTAssertLessThan(distance, 3 * t.0.distance(to: t.1))
            XCTAssertGreaterThanOrEqual(fare, t.4 == "mid" ? 4800 : 7000)
            XCTAssertTrue(perPerson * t.3 >= fare && perPerson * t.3 < fare + 10 * t.3, "shares of \(fare) for \(t.3): \(perPerson)")
            XCTAssertEqual(row[13], t.4 == "mid" ? "seoul-mid-2023-02-01" : "seoul-deluxe-2023-02-01")
        }
        XCTAssertEqual(rows[1][12], "0", "no night surcharge at 09:00")
        XCTAssertGreaterThan(Int(rows[2][12])!, 0, "night surcharge at 23:30")
        XCTAssertGreaterThan(Int(rows[4][12])!, 0, "night surcharge at 02:30")
    }

    func testPlaceTextIsGeocodedWithThePlacesEngine() throws {
        let text = """
        origin,destination,riders
        서울역,광화문,1
        종각역,서울역,2
        "126.9829,37.5700",이태원역,1
        없는장소이름,서울역,1
        서울역,서울특별시청,1
        ,광화문,1

        """
        let (rows, summary, _) = try run(text)
        XCTAssertEqual(rows.count, 7)
        let d = SeoulDataset.self
        let geocoder = try XCTUnwrap(SeoulDataset.estimator().geocoder)
        let seoulStation = try geocoder.locate("서울역", column: "origin").get()
        // The geocoded places are the real ones (within a few hundred metres of the stations).
        XCTAssertLessThan(seoulStation.coordinate.distance(to: d.seoulStation), 300, "\(seoulStation)")
        XCTAssertLessThan(try geocoder.locate("광화문", column: "destination").get().coordinate.distance(to: d.gwanghwamun), 300)
        XCTAssertLessThan(try geocoder.locate("종각역", column: "origin").get().coordinate.distance(to: d.jonggak), 300)
        // Row 1 is priced between the geocoded points, exactly as a quote between them.
        let gwanghwamun = try geocoder.locate("광화문", column: "destination").get()
        let q = try SeoulDataset.dataset().quotes.quote(QuoteRequest(origin: seoulStation.coordinate, destination: gwanghwamun.coordinate,
                                                                     departure: SeoulTime.parse("2024-05-08T12:00")!))
        XCTAssertEqual(rows[1][3], String(Int(q.route.distanceMeters.rounded())))
        XCTAssertEqual(rows[1][5], String(q.fare.totalKrw))
        XCTAssertEqual(rows[2].last!, "")
        XCTAssertEqual(rows[3].last!, "", "'lon,lat' text is a coordinate")
        XCTAssertTrue(rows[4].last!.hasPrefix("unknown_place: origin '없는장소이름' matches no known place"), rows[4].last!)
        // A mere prefix match is refused rather than priced to the wrong place.
        XCTAssertTrue(rows[5].last!.hasPrefix("unknown_place: destination '서울특별시청' matches no place well enough"), rows[5].last!)
        XCTAssertEqual(rows[6].last!, "empty_field: origin is empty")
        XCTAssertEqual(summary.rowsOK, 3)
        XCTAssertEqual(summary.failures[.unknownPlace]?.count, 2)
    }

    func testEveryKindOfBadRowGetsItsOwnCodeOnRealData() throws {
        // One row per kind of failure, then a good one; `expect` is the code each must get.
        let cases: [(row: String, expect: String)] = [
            ("126.9829,37.5700,126.9720,37.5547,,,,", ""),
            ("abc,37.5700,126.9720,37.5547,,,,", "not_a_number"),
            ("126.9829,,126.9720,37.5547,,,,", "empty_field"),
            ("126.9829,97.5700,126.9720,37.5547,,,,", "out_of_range"),
            ("126.9829,37.5700,127.1000,37.4500,,,,", "outside_coverage"),   // outside the served road network (issue 24: was no_road_nearby)
            ("126.9829,37.5700,126.9720,37.5547,2024-13-01T10:00,,,", "bad_date"),
            ("126.9829,37.5700,126.9720,37.5547,,11,,", "bad_riders"),
            ("126.9829,37.5700,126.9720,37.5547,,,limousine,", "unknown_taxi_class"),
            ("126.9829,37.5700,126.9720,37.5547,,,,halves", "unknown_split"),
            ("126.9829,37.5700,126.9720,37.5547,2010-05-01T10:00,,,", "no_schedule"),  // before the oldest Seoul schedule
            ("139.7000,35.7000,126.9720,37.5547,,,,", "outside_fare_regions"),        // Tokyo
            ("126.9829,37.5700,126.9720", "bad_field_count"),
        ]
        var text = "origin_lon,origin_lat,dest_lon,dest_lat,depart_at,riders,taxi_class,split\n"
        for c in cases { text += c.row + "\n" }
        let (rows, summary, _) = try run(text)
        XCTAssertEqual(rows.count, cases.count + 1)
        var seen = Set<String>()
        for (i, c) in cases.enumerated() {
            let error = rows[i + 1].last!
            let code = error.split(separator: ":").first.map(String.init) ?? ""
            XCTAssertEqual(code, c.expect, "row \(i + 2): \(error)")
            seen.insert(code)
            if !c.expect.isEmpty {
                XCTAssertEqual(rows[i + 1][8..<14].joined(), "", "row \(i + 2) has result columns despite its error")
                XCTAssertGreaterThan(error.count, code.count + 10, "row \(i + 2) has a message")
            }
        }
        XCTAssertEqual(seen.count, cases.count, "every kind has its own code")
        XCTAssertTrue(rows[5].last!.contains("destination"), "the message names the end with no road: \(rows[5].last!)")
        XCTAssertEqual(summary.rowsOK, 1)
        XCTAssertEqual(summary.rowsFailed, cases.count - 1)
        XCTAssertEqual(summary.exitCode, 2)
    }

    func testManyWorkersWriteExactlyWhatOneWorkerWrites() throws {
        // 2,000 trips between random points of central Seoul (some off the road network).
        var rng = SplitMix64(seed: 8)
        var text = "id,origin_lon,origin_lat,dest_lon,dest_lat,depart_at,riders\n"
        for i in 0..<2000 {
            func lon() -> Double { 126.95 + 0.05 * Double(rng.next() % 10_000) / 10_000 }
            func lat() -> Double { 37.53 + 0.06 * Double(rng.next() % 10_000) / 10_000 }
            text += "\(i),\(lon()),\(lat()),\(lon()),\(lat()),2024-05-0\(1 + i % 7)T\(10 + i % 14):15,\(1 + i % 4)\n"
        }
        let (_, one, oneBytes) = try run(text, workers: 1)
        let (rows, many, manyBytes) = try run(text, workers: 8, chunkRows: 3)
        XCTAssertEqual(manyBytes, oneBytes, "8 workers on 3-row chunks write the same bytes as one worker")
        XCTAssertEqual(rows.dropFirst().map { $0[0] }, (0..<2000).map(String.init))
        XCTAssertEqual(many.rowsOK, one.rowsOK)
        XCTAssertGreaterThan(many.rowsOK, 1500, many.report)
        XCTAssertGreaterThan(many.peakChunksInFlight, 8)
    }
}

