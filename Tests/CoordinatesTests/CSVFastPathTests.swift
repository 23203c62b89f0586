@testable import Coordinates
import CSV
import Geo
import XCTest

/// `taxipot transform`'s output with the closed-form kernels and the plain-line fast parser and
/// formatter must be byte for byte what PROJ alone and the general CSV path write.
final class CSVFastPathTests: XCTestCase {
    /// Runs the CSV stream over `text` in memory; `fast: false` is PROJ alone through the general path.
    func convert(_ text: [UInt8], from: String, to: String, fast: Bool, blockBytes: Int = 1 << 16,
                 separator: CSVLine.Separator = .comma) throws
        -> (output: [UInt8], errors: [String], summary: CSVTransformSummary)
    {
        var options = CSVTransformOptions()
        options.separator = separator
        options.plainFastPath = fast
        options.blockBytes = blockBytes
        let transformer = try CoordinateTransformer(from: from, to: to, fastKernels: fast)
        XCTAssertEqual(transformer.usesFastKernel, fast, "\(from) → \(to)")
        let stream = CSVCoordinateTransform(transformer: transformer, options: options)
        var output: [UInt8] = []
        var errors: [String] = []
        let summary = try stream.run(read: memoryReader(text), write: { output += $0 }, report: { errors.append($0) })
        return (output, errors, summary)
    }

    /// `count` lines `lon,lat` with 8 decimals over South Korea, as the benchmark writes them.
    func lonLatLines(_ count: Int, seed: UInt64) -> [UInt8] {
        var text = ""
        for p in FastKernelTests.koreaPoints(count, seed: seed) {
            text += String(format: "%.8f,%.8f\n", p.x, p.y)
        }
        return Array(text.utf8)
    }

    /// `x y` lines (`--delimiter space`, the cs2cs habit) take the fast path too: same bytes as the
    /// general path and PROJ alone, and as the comma form with the comma written as a space.
    func testWhitespaceLinesSameBytesAsTheGeneralPath() throws {
        let comma = lonLatLines(5_000, seed: 12)
        var spaced = comma.map { $0 == 44 ? 32 : $0 }
        spaced.insert(contentsOf: Array("  \t".utf8), at: 0)  // blanks before the first x
        let fast = try convert(spaced, from: "WGS84", to: "UTMK", fast: true, separator: .whitespace)
        let slow = try convert(spaced, from: "WGS84", to: "UTMK", fast: false, separator: .whitespace)
        let reference = try convert(comma, from: "WGS84", to: "UTMK", fast: true)
        XCTAssertEqual(fast.summary, CSVTransformSummary(lines: 5_000, converted: 5_000, badLines: 0))
        XCTAssertEqual(fast.output, slow.output)
        XCTAssertEqual(fast.output, reference.output.map { $0 == 44 ? 32 : $0 })
    }

    func testSameBytesAsPROJAndTheGeneralPath() throws {
        let lines = lonLatLines(20_000, seed: 11)
        for target in ["UTMK", "KATEC", "WCONGNAMUL", "KOREA2000-CENTRAL"] {
            let fast = try convert(lines, from: "WGS84", to: target, fast: true)
            let slow = try convert(lines, from: "WGS84", to: target, fast: false)
            XCTAssertEqual(fast.summary, CSVTransformSummary(lines: 20_000, converted: 20_000, badLines: 0))
            XCTAssertEqual(fast.output, slow.output, "WGS84 → \(target)")
            // And back, from the 3-decimal grid coordinates just written.
            let back = try convert(slow.output, from: target, to: "WGS84", fast: true)
            let backSlow = try convert(slow.output, from: target, to: "WGS84", fast: false)
            XCTAssertEqual(back.output, backSlow.output, "\(target) → WGS84")
        }
    }

    /// PROJ puts this point 2e-15° above a rounding boundary of the 8th decimal (125.300333475000002,
    /// `cs2cs -f %.15f EPSG:5179 EPSG:4326`); the kernel lands nanodegrees below it. Such points are
    /// recomputed by PROJ alone, so the text stays PROJ's.
    func testPointsNearARoundingBoundaryArePROJs() throws {
        let line = Array("806446.473,1984614.091\n".utf8)
        let expected = Array("125.30033348,37.84077752\n".utf8)
        XCTAssertEqual(try convert(line, from: "UTMK", to: "WGS84", fast: true).output, expected)
        XCTAssertEqual(try convert(line, from: "UTMK", to: "WGS84", fast: false).output, expected)
        var general = CSVTransformOptions()
        general.plainFastPath = false
        let stream = CSVCoordinateTransform(transformer: try CoordinateTransformer(from: "UTMK", to: "WGS84"), options: general)
        var output: [UInt8] = []
        _ = try stream.run(read: memoryReader(line), write: { output += $0 }, report: { _ in })
        XCTAssertEqual(output, expected, "the general CSV path settles ties too")
    }

    /// Runs with unusual lines fall back to the general path: same bytes, same messages.
    func testUnusualLinesTakeTheGeneralPath() throws {
        var text = Array("127.5,37.5\n 127.1 , 37.2 \n\"126.9\",37.6\n1.275e2,3.75e1\n\n127.25,37.25\r\n".utf8)
        text += Array("-0.0000000001,0\n127,91\nfoo,bar\n127.12345678901234567,37.1\n+127,37\n127,37".utf8)
        let fast = try convert(text, from: "WGS84", to: "UTMK", fast: true)
        let slow = try convert(text, from: "WGS84", to: "UTMK", fast: false)
        XCTAssertEqual(fast.output, slow.output)
        XCTAssertEqual(fast.errors, slow.errors)
        XCTAssertEqual(fast.errors, ["line 8: latitude 91.0 is beyond ±90", "line 9: x 'foo' is not a finite number"])
        XCTAssertEqual(fast.summary, slow.summary)
        // A clean run in the same stream as a bad one: the bad part alone is redone.
        let mixed = lonLatLines(5000, seed: 3) + Array("127,95\n".utf8) + lonLatLines(5000, seed: 4)
        let m = try convert(mixed, from: "WGS84", to: "KATEC", fast: true, blockBytes: 4096)
        let ms = try convert(mixed, from: "WGS84", to: "KATEC", fast: false, blockBytes: 4096)
        XCTAssertEqual(m.output, ms.output)
        XCTAssertEqual(m.errors, ["line 5001: latitude 95.0 is beyond ±90"])
        XCTAssertEqual(m.errors, ms.errors)
    }
}

/// The fast formatter against `CoordinateText.appendFixed`, including halfway cases and signs.
final class FixedFormatTests: XCTestCase {
    func testSameTextAsAppendFixed() {
        var values: [Double] = [0, -0.0, 0.0005, -0.0005, 1.0005, 2.5e-9, -2.5e-9, 0.125, 953949.4172, -1e-12, 123.4565,
                                99.9995, 999999.99950, 1.5e-8, 5e-9, -5e-9, 127.000000005, 8.8e12, -8.8e12]
        var random = SplitMix64(seed: 5)
        for _ in 0..<20_000 {
            let u = Double(random.next() >> 11) / Double(1 << 53)
            values.append((u - 0.3) * 3e6)
            values.append(Double(Int64(u * 1e9)) / 1000 + 0.0005)  // exact-ish halfway cases
            values.append((u - 0.5) * 400)
        }
        forEachFixedText(values) { v, decimals, written in
            var expected: [UInt8] = []
            CoordinateText.appendFixed(v, decimals: decimals, into: &expected)
            if let written {
                XCTAssertEqual(written, expected, "\(v) with \(decimals) decimals")
            } else {
                XCTAssertGreaterThanOrEqual(abs(v * pow(10, Double(decimals))), 8.9e15, "\(v) left to the general path")
            }
        }
    }
}

/// The fast decimal reader against the general one (`strtod` behind an exact fast path).
final class FastDecimalTests: XCTestCase {
    func testSameDoublesAsTheGeneralParser() {
        var texts = ["0", "-0", "127", "127.", ".5", "-.5", "37.56655400", "953949.4172", "-0.00000001", "00012.5",
                     "9007199254740991", "9007199254740993", "1234567890.123456789", "0.1234567890123456789",
                     "123456789012345678901", "-", ".", "-.", "1.2.3", "12a", ""]
        var random = SplitMix64(seed: 9)
        for _ in 0..<30_000 {
            let u = Double(random.next() >> 11) / Double(1 << 53)
            texts.append(String(format: "%.8f", (u - 0.4) * 400))
            texts.append(String(format: "%.3f", u * 3e6))
            texts.append(String(format: "%.17g", u))
        }
        let scratch = UnsafeMutablePointer<CChar>.allocate(capacity: 72)
        defer { scratch.deallocate() }
        LineConverter.powersOfTen.withUnsafeBufferPointer { powers in
            for text in texts {
                let bytes = Array(text.utf8)
                bytes.withUnsafeBufferPointer { b in
                    var i = 0
                    let fast = b.baseAddress.flatMap { LineConverter.decimal($0, &i, b.count, powers.baseAddress!) }
                    let general = CoordinateText.parseNumber(b, scratch: scratch)
                    if let fast, i == b.count {
                        XCTAssertEqual(fast.bitPattern, general?.bitPattern, text)
                    } else if fast != nil {
                        // A number followed by something else: the line reader then rejects the line.
                        XCTAssertNil(general, text)
                    } else {
                        // Left to the general path: long mantissas and non-numbers.
                        XCTAssertTrue(general == nil || bytes.count >= 16, text)
                    }
                }
            }
        }
    }
}

/// The fast path's digit kernels and edge cases, against the standard library (`strtod`, `%.*f`).
final class FastDigitsTests: XCTestCase {
    /// Every 8-byte word classified like a byte-by-byte check; digit words valued like `Int(String)`.
    func testEightDigitWords() {
        var random = SplitMix64(seed: 21)
        var words: [UInt64] = [0x3030_3030_3030_3030, 0x3939_3939_3939_3939, 0x2F30_3030_3030_3030, 0x3A30_3030_3030_3030,
                               0x3030_3030_3030_302F, 0x3030_3030_3030_303A, 0, .max, 0x3939_3939_3939_39FF]
        for _ in 0..<200_000 {
            let r = random.next()
            words.append(r)
            // Mostly digits, with one byte now and then replaced by a neighbour of '0'…'9' or anything.
            var w: UInt64 = 0
            for b in 0..<8 {
                var byte = UInt64(48 + (r >> (b * 5)) % 10)
                if (r >> (40 + b)) & 7 == 0 { byte = [0x2F, 0x3A, 0x2E, 0x2C, 0xB0, 0xF6, 0x00, 0x7F][Int((r >> (b * 3)) & 7)] }
                w |= byte << (8 * b)
            }
            words.append(w)
        }
        for w in words {
            let bytes = (0..<8).map { UInt8(truncatingIfNeeded: w >> (8 * $0)) }
            let digits = bytes.allSatisfy { $0 >= 48 && $0 <= 57 }
            XCTAssertEqual(LineConverter.isEightDigits(w), digits, String(w, radix: 16))
            if digits {
                XCTAssertEqual(LineConverter.eightDigitsValue(w), UInt64(String(decoding: bytes, as: UTF8.self)))
            }
        }
    }

    /// `eightDigits(v)` is `%08d` for every magnitude and many values below 10⁸.
    func testEightDigitsText() {
        var values: [UInt64] = [0, 1, 9, 10, 99, 100, 999, 1000, 9999, 10000, 99_999_999, 12_345_678, 10_000_001]
        var random = SplitMix64(seed: 22)
        for _ in 0..<100_000 { values.append(random.next() % 100_000_000) }
        for e in 0..<8 {
            let p = UInt64(pow(10.0, Double(e)))
            values += [p - 1, p, p + 1, 9 * p]
        }
        for v in values where v < 100_000_000 {
            let word = LineConverter.eightDigits(v)
            let text = String(decoding: (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }, as: UTF8.self)
            XCTAssertEqual(text, String(format: "%08llu", v))
        }
    }

    /// The fast reader gives `strtod`'s double whenever it takes a number, on random decimals of every
    /// length (8-digit chunk boundaries included) and on edge cases; it leaves to the general path
    /// what it cannot read exactly.
    func testDecimalsAgainstStrtod() {
        var texts = ["0", "-0", "0.00000000", "-0.00000000", "-0.0", "1.12345678", "1.123456789", "12345678.12345678",
                     "0.1234567890123456", "123456789012345.6", "9007199254740991", "9007199254740992", "9007199254740993",
                     "4503599627370496.5", "4503599627370497.5", "0.0000000000000000000001", "0.00000000000000000000001",
                     "1.00000000000000000000", "179.99999999", "-179.99999999", "89.999999995", "0.5", "2.5", "1e5",
                     "1E-5", "1e308", "1e-320", "12345678901234567890", "1.2345678a", "123.4567890,1", "00000000.00000001",
                     "99999999.99999999", "127.", ".12345678", "-.12345678"]
        var random = SplitMix64(seed: 23)
        for _ in 0..<60_000 {
            let u = Double(random.next() >> 11) / Double(1 << 53)
            let digits = Int(random.next() % 20)
            texts.append(String(format: "%.\(digits)f", (u - 0.5) * pow(10, Double(random.next() % 12))))
            texts.append(String(format: "%.17g", u * 1e6))
        }
        LineConverter.powersOfTen.withUnsafeBufferPointer { powers in
            for text in texts {
                let bytes = Array(text.utf8)
                let expected = strtod(text, nil)
                var end = 0
                let fast = bytes.withUnsafeBufferPointer { b in
                    b.baseAddress.flatMap { LineConverter.decimal($0, &end, b.count, powers.baseAddress!) }
                }
                guard let fast else {
                    // Left to the general path: more than 19 digits, a mantissa of 2⁵³ or more,
                    // exponents, nothing numeric.
                    let plain = bytes.allSatisfy { ($0 >= 48 && $0 <= 57) || $0 == 46 || $0 == 45 }
                    let digitCount = bytes.filter { $0 >= 48 && $0 <= 57 }.count
                    XCTAssertTrue(!plain || digitCount > 15 || digitCount == 0 || text.filter({ $0 == "." }).count > 1, text)
                    continue
                }
                // It read a prefix; `strtod` of the same prefix is the same double, sign of zero included.
                let prefix = String(decoding: bytes[..<end], as: UTF8.self)
                XCTAssertEqual(fast.bitPattern, strtod(prefix, nil).bitPattern, text)
                if end == bytes.count { XCTAssertEqual(fast.bitPattern, expected.bitPattern, text) }
            }
        }
    }

    /// `writeFixed` prints what `%.3f`/`%.8f` print whenever v × 10^decimals is not within 1e-6 of a
    /// half (there `%f` rounds the exact binary value half-even, the writer its product half away from
    /// zero like `appendFixed`, checked in `FixedFormatTests`); no "-" on a value that prints as zero.
    func testFixedAgainstPrintf() {
        var values: [Double] = [0, -0.0, 1e-300, -1e-300, 0.0004, -0.0004, 0.0006, -0.0006, 99_999_999.9994, 99_999_999.9996,
                                100_000_000, -100_000_000, 123_456_789.123, 8.8e12, -8.8e12, 12_345_678.87654321, 1, 10, 100]
        var random = SplitMix64(seed: 24)
        for _ in 0..<50_000 {
            let u = Double(random.next() >> 11) / Double(1 << 53)
            values.append((u - 0.5) * pow(10, Double(random.next() % 14)))
            values.append((u - 0.5) * 400)
        }
        forEachFixedText(values) { v, decimals, written in
            guard let written else {
                XCTAssertGreaterThanOrEqual(abs(v * pow(10, Double(decimals))), 8.9e15, "\(v)")
                return
            }
            let text = String(decoding: written, as: UTF8.self)
            let p = abs(v * pow(10, Double(decimals)))
            guard abs(p - p.rounded(.down) - 0.5) > 1e-6 else { return }
            var expected = String(format: "%.\(decimals)f", v)
            if expected.hasPrefix("-"), expected.dropFirst().allSatisfy({ $0 == "0" || $0 == "." }) { expected.removeFirst() }
            XCTAssertEqual(text, expected, "\(v) with \(decimals) decimals")
        }
    }
}

/// Writes each of `values` with 3 and then 8 decimals through the fast writer and hands over
/// the bytes it wrote, or nil when it left the value to the general path.
func forEachFixedText(_ values: [Double], _ body: (Double, Int, [UInt8]?) -> Void) {
    for decimals in [3, 8] {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        LineConverter.digitPairs.withUnsafeBufferPointer { pairs in
            let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
            defer { buffer.deallocate() }
            for v in values {
                var k = 0
                let ok = LineConverter.writeFixed(v, scale: scale, decimals: decimals, pairs: pairs.baseAddress!, into: buffer, at: &k)
                body(v, decimals, ok ? Array(UnsafeBufferPointer(start: buffer, count: k)) : nil)
            }
        }
    }
}
