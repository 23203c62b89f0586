import Foundation
import Geo
@testable import MapMatching
import XCTest

/// Issue 43: a GPX file was read whole (in time quadratic in its size) only to be refused above
/// 10,000 fixes. The reader now stops at fix 10,001 and names the limit.
final class TraceFileLimitTests: XCTestCase {
    /// A GPX document of `count` fixes 1 s apart along Sejong-daero, then `tail`.
    func gpx(_ count: Int, tail: String = "") -> [UInt8] {
        var text = #"<?xml version="1.0"?><gpx version="1.1" creator="test"><trk><trkseg>"# + "\n"
        for i in 0..<count {
            text += #"<trkpt lat="\#(37.5665 + Double(i % 100) * 0.00001)" lon="126.9780"><time>2026-12-07T10:\#(String(format: "%02d:%02d", (i / 60) % 60, i % 60))+09:00</time></trkpt>"# + "\n"
        }
        return Array((text + tail + "</trkseg></trk></gpx>\n").utf8)
    }

    func testAtTheLimitEveryFixIsRead() throws {
        let fixes = try TraceFile.read(bytes: gpx(MatchOptions.maxFixes), path: "t.gpx")
        XCTAssertEqual(fixes.count, MatchOptions.maxFixes)
        XCTAssertEqual(fixes[1].coordinate.lat, 37.56651, accuracy: 1e-9)
        XCTAssertEqual(fixes[61].time.map { $0 - fixes[0].time! }, 61)
    }

    /// What follows fix 10,001 is not read: a broken element there does not change the refusal.
    func testPastTheLimitReadingStopsAndTheErrorNamesIt() throws {
        let broken = "<trkpt lat=\"x\">\n"
        for count in [MatchOptions.maxFixes + 1, MatchOptions.maxFixes + 50] {
            XCTAssertThrowsError(try TraceFile.read(bytes: gpx(count, tail: broken), path: "long.gpx")) { error in
                let message = "\(error)"
                XCTAssertTrue(message.contains("more than \(MatchOptions.maxFixes) fixes"), message)
                XCTAssertTrue(message.hasPrefix("long.gpx:\(MatchOptions.maxFixes + 2):"), "names the line of fix 10,001: \(message)")
            }
        }
        // Below the limit the broken element is read and refused as before.
        XCTAssertThrowsError(try TraceFile.read(bytes: gpx(3, tail: broken), path: "short.gpx")) { error in
            XCTAssertEqual("\(error)", "short.gpx:5: <trkpt> needs numeric lat and lon attributes")
        }
    }

    func testACSVTracePastTheLimitIsRefusedNamingIt() throws {
        let csv = "lon,lat\n" + String(repeating: "126.978,37.5665\n", count: 4)
        XCTAssertThrowsError(try TraceFile.read(bytes: Array(csv.utf8), path: "t.csv", maxFixes: 3)) { error in
            XCTAssertEqual("\(error)", "t.csv:5: the trace has more than 3 fixes, the most one may hold; split it")
        }
        XCTAssertEqual(try TraceFile.read(bytes: Array(csv.utf8), path: "t.csv", maxFixes: 4).count, 4)
    }
}
