import TaxiPot
import XCTest

/// An instant from Seoul clock text (`2024-05-08T22:00`); a test failure (and 0) for text that
/// is not one.
public func seoul(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> Double {
    guard let t = SeoulTime.parse(text) else {
        XCTFail("bad test date \(text)", file: file, line: line)
        return 0
    }
    return t
}
