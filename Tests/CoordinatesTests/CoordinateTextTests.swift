@testable import Coordinates
import Foundation
import Geo
import XCTest

/// Number parsing and formatting of the CSV path agree with the C library.
final class CoordinateTextTests: XCTestCase {
    func parse(_ text: String) -> Double? {
        let scratch = UnsafeMutablePointer<CChar>.allocate(capacity: 72)
        defer { scratch.deallocate() }
        return Array(text.utf8).withUnsafeBufferPointer { CoordinateText.parseNumber($0, scratch: scratch) }
    }

    func format(_ v: Double, _ decimals: Int) -> String {
        var out: [UInt8] = []
        CoordinateText.appendFixed(v, decimals: decimals, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    func testParsingMatchesStrtodBitForBit() {
        var random = SplitMix64(seed: 12345)
        func next() -> UInt64 { random.next() >> 11 }
        for _ in 0..<20_000 {
            let whole = next() % 2_000_000
            let decimals = Int(next() % 12)
            var text = "\(next() % 3 == 0 ? "-" : "")\(whole)"
            if decimals > 0 { text += "." + (0..<decimals).map { _ in String(next() % 10) }.joined() }
            XCTAssertEqual(parse(text)?.bitPattern, strtod(text, nil).bitPattern, text)
        }
        for text in ["0", "-0", "+1.5", "1.", ".5", "007.250", "1e3", "-2.5E-3", "12345678901234567890.5", " 127.5 ",
                     "0.000000000000000000000001"] {
            XCTAssertEqual(parse(text)?.bitPattern, strtod(text, nil).bitPattern, text)
        }
        for bad in ["", " ", "-", ".", "1..2", "1.2.3", "abc", "1,5", "nan", "inf", "0x10", "1e999", "--1", "1-"] {
            XCTAssertNil(parse(bad), bad)
        }
    }

    func testFixedDecimalsMatchPrintf() {
        for v in [0.0, 1, -1, 309958.43891, 552078.8189, 126.978546, 37.566554, 14135187.0824, -155358.4701, 1e-9, 123456789.123] {
            XCTAssertEqual(format(v, 3), String(format: "%.3f", v))
            XCTAssertEqual(format(v, 8), String(format: "%.8f", v))
        }
        XCTAssertEqual(format(-0.0001, 3), "0.000")  // no "-0.000"
        XCTAssertEqual(format(1e17, 3), "100000000000000000.000")  // beyond the fast path
    }
}
