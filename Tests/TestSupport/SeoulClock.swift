import TaxiPot
#if canImport(XCTest)
import XCTest
#endif

/// An instant from Seoul clock text (`2024-05-08T22:00`); a test failure (and 0) for text that
/// is not one.
///
/// XCTest is imported only where it exists: `make release` builds this target too (it is a plain
/// target), and the static release toolchain has no XCTest; there a bad date stops the process.
public func seoul(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> Double {
    guard let t = SeoulTime.parse(text) else {
        #if canImport(XCTest)
        XCTFail("bad test date \(text)", file: file, line: line)
        return 0
        #else
        fatalError("bad test date \(text)", file: file, line: line)
        #endif
    }
    return t
}
