import Foundation

/// Byte-level number parsing and fixed-decimal formatting for coordinate text (CSV lines).
enum CoordinateText {
    /// Exact powers of ten up to 10^22 (the Clinger fast path's range).
    private static let powersOfTen: [Double] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
                                                 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]

    /// A finite number from ASCII bytes (digits, sign, point, exponent; spaces around ignored), or nil.
    /// `scratch` must hold at least 65 bytes; it is reused between calls to avoid allocation.
    ///
    /// Plain decimals of up to 15 significant digits are computed as mantissa ÷ 10^k, which is
    /// correctly rounded (both exact, one IEEE division), so the result equals `strtod`'s; anything
    /// else goes to `strtod`.
    static func parseNumber(_ bytes: UnsafeBufferPointer<UInt8>, scratch: UnsafeMutablePointer<CChar>) -> Double? {
        var lo = 0, hi = bytes.count
        while lo < hi, bytes[lo] == 32 || bytes[lo] == 9 { lo += 1 }
        while hi > lo, bytes[hi - 1] == 32 || bytes[hi - 1] == 9 { hi -= 1 }
        let n = hi - lo
        guard n > 0, n <= 64 else { return nil }
        if let v = fastDecimal(bytes, lo, hi) { return v }
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

    /// `[sign] digits [. digits]` with at most 15 significant digits, else nil (left to strtod).
    private static func fastDecimal(_ b: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int) -> Double? {
        var i = lo
        var negative = false
        if b[i] == 45 { negative = true; i += 1 } else if b[i] == 43 { i += 1 }
        var mantissa: UInt64 = 0
        var significant = 0, fraction = 0, digits = 0
        var sawPoint = false
        while i < hi {
            let c = b[i]
            if c >= 48 && c <= 57 {
                digits += 1
                if mantissa != 0 || c != 48 { significant += 1 }
                guard significant <= 15 else { return nil }
                mantissa = mantissa * 10 + UInt64(c - 48)
                if sawPoint { fraction += 1 }
            } else if c == 46, !sawPoint {
                sawPoint = true
            } else {
                return nil
            }
            i += 1
        }
        guard digits > 0, fraction <= 22 else { return nil }
        let v = Double(mantissa) / powersOfTen[fraction]
        return negative ? -v : v
    }

    /// Appends `v` with exactly `decimals` (0…9) digits after the point; no "-" on a value that rounds to 0.
    static func appendFixed(_ v: Double, decimals: Int, into out: inout [UInt8]) {
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (v * Double(scale)).rounded()
        guard v.isFinite, abs(scaled) < 9e15, decimals <= 9 else {
            out.append(contentsOf: String(format: "%.\(decimals)f", v).utf8)
            return
        }
        var n = Int64(scaled)
        let negative = n < 0
        if negative { n = -n }
        // Digits right to left into a stack buffer, then one append.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buf in
            var k = 32
            var frac = n % scale
            if decimals > 0 {
                for _ in 0..<decimals {
                    k -= 1
                    buf[k] = UInt8(48 + frac % 10)
                    frac /= 10
                }
                k -= 1
                buf[k] = 46  // "."
            }
            var whole = n / scale
            repeat {
                k -= 1
                buf[k] = UInt8(48 + whole % 10)
                whole /= 10
            } while whole > 0
            if negative {
                k -= 1
                buf[k] = 45
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buf[k..<32]))
        }
    }
}
