@testable import Coordinates
import Geo
import XCTest

/// `taxipot transform`'s output with the closed-form kernels and the plain-line fast parser and
/// formatter must be byte for byte what PROJ alone and the general CSV path write.
final class CSVFastPathTests: XCTestCase {
    /// Runs the CSV stream over `text` in memory; `fast: false` is PROJ alone through the general path.
    func convert(_ text: [UInt8], from: String, to: String, fast: Bool, blockBytes: Int = 1 << 16) throws
        -> (output: [UInt8], errors: [String], summary: CSVTransformSummary)
    {
        var options = CSVTransformOptions()
        options.plainFastPath = fast
        options.blockBytes = blockBytes
        let transformer = try CoordinateTransformer(from: from, to: to, fastKernels: fast)
        XCTAssertEqual(transformer.usesFastKernel, fast, "\(from) → \(to)")
        let stream = CSVCoordinateTransform(transformer: transformer, options: options)
        var position = 0
        var output: [UInt8] = []
        var errors: [String] = []
        let summary = try stream.run(
            read: { buffer in
                let n = min(buffer.count, text.count - position)
                for i in 0..<n { buffer[i] = text[position + i] }
                position += n
                return n
            },
            write: { output += $0 },
            report: { errors.append($0) })
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
        var done = false
        _ = try stream.run(read: { buffer in
            if done { return 0 }
            done = true
            for (i, b) in line.enumerated() { buffer[i] = b }
            return line.count
        }, write: { output += $0 }, report: { _ in })
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
        for decimals in [3, 8] {
            var scale = 1.0
            for _ in 0..<decimals { scale *= 10 }
            LineConverter.digitPairs.withUnsafeBufferPointer { pairs in
                let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
                defer { buffer.deallocate() }
                for v in values {
                    var expected: [UInt8] = []
                    CoordinateText.appendFixed(v, decimals: decimals, into: &expected)
                    var k = 0
                    if LineConverter.writeFixed(v, scale: scale, decimals: decimals, pairs: pairs.baseAddress!, into: buffer, at: &k) {
                        XCTAssertEqual(Array(UnsafeBufferPointer(start: buffer, count: k)), expected, "\(v) with \(decimals) decimals")
                    } else {
                        XCTAssertGreaterThanOrEqual(abs(v * scale), 8.9e15, "\(v) left to the general path")
                    }
                }
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
