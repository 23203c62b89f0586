import Foundation
import TaxiPot
import TestSupport
import XCTest

/// `taxipot table`: a CSV round trip equal to the library's routes and quotes, and errors that
/// name the file and line.
final class TableCLITests: XCTestCase {
    let departAt = "2025-05-01T22:40:00+09:00"
    let sourcesCSV = "name,ID,lon,lat\ncity hall,a,126.9780,37.5665\nnamsan,b,126.9910,37.5512\ngwanghwamun,c,126.9769,37.5759\n"
    let destinationsCSV = "lat,lon,id\n37.5547,126.9706,x\n37.5701,126.9882,y\n"

    func files(_ contents: [String: String]) throws -> URL {
        let dir = TestPaths.temporaryDirectory("table-cli")
        for (name, text) in contents { try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return dir
    }

    func testRoundTripEqualsRoutesAndQuotes() throws {
        let dir = try files(["A.csv": sourcesCSV, "B.csv": destinationsCSV])
        let out = dir.appendingPathComponent("out.csv").path
        let r = try TaxipotCLI.run(["table", "--sources", dir.appendingPathComponent("A.csv").path,
                                    "--destinations", dir.appendingPathComponent("B.csv").path,
                                    "--depart-at", departAt, "--data", try TestDataset.directory(), "-o", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "source_id,destination_id,duration_s,distance_m,fare_krw")
        XCTAssertEqual(lines.count, 1 + 3 * 2)
        let dataset = try TestDataset.loaded.get()
        let t = try XCTUnwrap(SeoulTime.parse(departAt))
        let sources = [("a", 126.9780, 37.5665), ("b", 126.9910, 37.5512), ("c", 126.9769, 37.5759)]
        let destinations = [("x", 126.9706, 37.5547), ("y", 126.9882, 37.5701)]
        var k = 1
        for s in sources {
            for d in destinations {
                let f = lines[k].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                k += 1
                XCTAssertEqual(f[0], s.0)
                XCTAssertEqual(f[1], d.0)
                let a = Coordinate(lon: s.1, lat: s.2), b = Coordinate(lon: d.1, lat: d.2)
                let route = try dataset.routes.route(RouteRequest(from: a, to: b, departAt: t))
                XCTAssertEqual(Double(f[2]), (route.durationSeconds * 10).rounded() / 10, "\(s.0)→\(d.0)")
                XCTAssertEqual(Double(f[3]), (route.distanceMeters * 10).rounded() / 10, "\(s.0)→\(d.0)")
                let quote = try dataset.quotes.quote(QuoteRequest(origin: a, destination: b, departure: t))
                XCTAssertEqual(Int(f[4]), quote.fare.totalKrw, "\(s.0)→\(d.0)")
            }
        }
        // Without destinations: every source to every source, fares left out on request.
        let square = try TaxipotCLI.run(["table", "--sources", dir.appendingPathComponent("A.csv").path, "--no-fare",
                                         "--depart-at", departAt, "--data", try TestDataset.directory()])
        XCTAssertEqual(square.status, 0, square.stderr)
        let rows = square.stdoutText.split(separator: "\n").dropFirst()
        XCTAssertEqual(rows.count, 9)
        XCTAssertEqual(rows.first, "a,a,0,0,")
        XCTAssertTrue(rows.allSatisfy { $0.hasSuffix(",") })
    }

    func testErrorsNameTheFileAndLine() throws {
        let dir = try files([
            "A.csv": sourcesCSV,
            "nolat.csv": "id,lon\np,126.97\n",
            "badlon.csv": "id,lon,lat\np,126.97,37.56\nq,east,37.5\n",
            "short.csv": "id,lon,lat\np,126.97\n",
            "empty.csv": "",
            "header.csv": "id,lon,lat\n",
            "far.csv": "id,lon,lat\np,126.97,37.56\nsea,125.0,36.0\n",
        ])
        let data = try TestDataset.directory()
        func run(_ extra: [String]) throws -> TaxipotCLI.Outcome {
            try TaxipotCLI.run(["table", "--data", data] + extra)
        }
        let a = dir.appendingPathComponent("A.csv").path
        let cases: [([String], [String])] = [
            (["--sources", dir.appendingPathComponent("nolat.csv").path], ["nolat.csv", "line 1", "'lat'"]),
            (["--sources", a, "--destinations", dir.appendingPathComponent("badlon.csv").path], ["badlon.csv", "line 3", "lon"]),
            (["--sources", dir.appendingPathComponent("short.csv").path], ["short.csv", "line 2", "'lat'"]),
            (["--sources", dir.appendingPathComponent("empty.csv").path], ["empty.csv", "empty"]),
            (["--sources", dir.appendingPathComponent("header.csv").path], ["header.csv", "no points"]),
            (["--sources", a, "--destinations", dir.appendingPathComponent("far.csv").path], ["far.csv", "line 3", "'sea'", "no road"]),
            (["--sources", dir.appendingPathComponent("missing.csv").path], ["missing.csv"]),
            (["--destinations", a], ["--sources"]),
            (["--sources", a, "--depart-at", "soon"], ["--depart-at"]),
            (["--sources", a, "--max-snap-m", "0"], ["--max-snap-m"]),
        ]
        for (args, needles) in cases {
            let out = dir.appendingPathComponent("out.csv")
            try? FileManager.default.removeItem(at: out)
            let r = try run(args + ["-o", out.path])
            XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
            for n in needles { XCTAssertTrue(r.stderr.contains(n), "\(args): '\(n)' not in: \(r.stderr)") }
            // Nothing half-written: a bad point stops the run before the output is opened.
            XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "\(args) wrote \(out.path)")
        }
    }
}
