import Foundation

/// Byte-level number parsing and fixed-decimal formatting for coordinate text (CSV lines).
enum CoordinateText {
    /// A finite number from ASCII bytes (digits, sign, point, exponent; spaces around ignored), or nil.
    /// `scratch` must hold at least 65 bytes; it is reused between calls to avoid allocation.
    static func parseNumber(_ bytes: UnsafeBufferPointer<UInt8>, scratch: UnsafeMutablePointer<CChar>) -> Double? {
        var lo = 0, hi = bytes.count
        while lo < hi, bytes[lo] == 32 || bytes[lo] == 9 { lo += 1 }
        while hi > lo, bytes[hi - 1] == 32 || bytes[hi - 1] == 9 { hi -= 1 }
        let n = hi - lo
        guard n > 0, n <= 64 else { return nil }
        for i in lo..<hi {
            switch bytes[i] {
            case 48...57, 43, 45, 46, 101, 69: scratch[i - lo] = CChar(bitPattern: bytes[i])
            default: return nil
            }
        }
        scratch[n] = 0
        var end: UnsafeMutablePointer<CChar>? = nil
        let v = strtod(scratch, &end)
        guard let end, end == scratch + n, v.isFinite else { return nil }
        return v
    }

    /// Appends `v` with exactly `decimals` (0…9) digits after the point; no "-" on a value that rounds to 0.
    static func appendFixed(_ v: Double, decimals: Int, into out: inout [UInt8]) {
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (v * Double(scale)).rounded()
        guard v.isFinite, abs(scaled) < 9e15 else {
            out.append(contentsOf: String(format: "%.\(decimals)f", v).utf8)
            return
        }
        var n = Int64(scaled)
        if n < 0 {
            out.append(UInt8(ascii: "-"))
            n = -n
        }
        appendDigits(n / scale, into: &out)
        if decimals > 0 {
            out.append(UInt8(ascii: "."))
            var frac = n % scale
            let base = out.count
            out.append(contentsOf: repeatElement(UInt8(48), count: decimals))
            var k = base + decimals - 1
            while frac > 0, k >= base {
                out[k] = UInt8(48 + frac % 10)
                frac /= 10
                k -= 1
            }
        }
    }

    private static func appendDigits(_ value: Int64, into out: inout [UInt8]) {
        if value < 10 {
            out.append(UInt8(48 + value))
            return
        }
        var buf: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                  UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var v = value, len = 0
        withUnsafeMutableBytes(of: &buf) { b in
            while v > 0 {
                b[19 - len] = UInt8(48 + v % 10)
                v /= 10
                len += 1
            }
            out.append(contentsOf: b[(20 - len)...])
        }
    }

    /// The byte ranges of a CSV line's fields (RFC 4180 quoting; quotes stay in the range).
    /// nil when a quoted field is not closed on the line.
    static func fieldRanges(_ line: UnsafeBufferPointer<UInt8>, into ranges: inout [Range<Int>]) -> Bool {
        ranges.removeAll(keepingCapacity: true)
        var i = 0
        let n = line.count
        while true {
            let start = i
            if i < n, line[i] == 34 {  // quoted field
                i += 1
                var closed = false
                while i < n {
                    if line[i] == 34 {
                        if i + 1 < n, line[i + 1] == 34 { i += 2; continue }
                        i += 1
                        closed = true
                        break
                    }
                    i += 1
                }
                guard closed else { return false }
                while i < n, line[i] != 44 { i += 1 }  // anything after the closing quote stays in the field
            } else {
                while i < n, line[i] != 44 { i += 1 }
            }
            ranges.append(start..<i)
            if i >= n { return true }
            i += 1  // past the comma
        }
    }

    /// A field's value bytes: without surrounding spaces and quotes (doubled quotes are kept as-is;
    /// numbers never contain them).
    static func unquoted(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int> {
        var lo = range.lowerBound, hi = range.upperBound
        while lo < hi, line[lo] == 32 || line[lo] == 9 { lo += 1 }
        while hi > lo, line[hi - 1] == 32 || line[hi - 1] == 9 { hi -= 1 }
        if hi - lo >= 2, line[lo] == 34, line[hi - 1] == 34 { lo += 1; hi -= 1 }
        return lo..<hi
    }

    /// Header names: unquoted, spaces trimmed, a leading UTF-8 byte-order mark dropped.
    static func headerNames(_ line: [UInt8]) -> [String]? {
        var bytes = line
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        return bytes.withUnsafeBufferPointer { b -> [String]? in
            var ranges: [Range<Int>] = []
            guard fieldRanges(b, into: &ranges) else { return nil }
            return ranges.map { r in
                let u = unquoted(b, r)
                return String(decoding: b[u], as: UTF8.self).replacingOccurrences(of: "\"\"", with: "\"")
            }
        }
    }
}
