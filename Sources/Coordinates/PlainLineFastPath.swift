/// The fast path of `LineConverter` for plain `x,y` lines (no header, no columns): the common case
/// of `taxipot transform`. It handles a run of lines only when every one is a plain pair of short
/// decimals and every point converts; anything else (spaces, quotes, exponents, long mantissas,
/// blank or bad lines, points that fail) makes it return nil, and the general path converts the run,
/// so messages and output for unusual input are unchanged.
///
/// Numbers are read as an integer mantissa below 2⁵³ divided by an exact power of ten (at most
/// 10²²): one correctly rounded IEEE division, hence the same double as `strtod` and the general
/// parser. Output uses the same arithmetic as `CoordinateText.appendFixed` (scale, round half away
/// from zero, integer digits), written straight into the part's buffer.
extension LineConverter {
    /// Longest formatted number: sign, 16 digits, point.
    private static let maxNumberBytes = 18

    func convertPlainFast(_ bytes: UnsafeBufferPointer<UInt8>) -> ConvertedPart? {
        guard columns == nil, let base = bytes.baseAddress, decimals <= 9 else { return nil }
        let end = bytes.count
        var lines = 0
        var i = 0
        while i < end {
            if bytes[i] == 10 { lines += 1 }
            i += 1
        }
        if end > 0, bytes[end - 1] != 10 { lines += 1 }
        var xs = [Double](repeating: 0, count: lines), ys = [Double](repeating: 0, count: lines)
        let parsed = xs.withUnsafeMutableBufferPointer { bx in
            ys.withUnsafeMutableBufferPointer { by in
                Self.parsePairs(base, end, bx.baseAddress!, by.baseAddress!, lines)
            }
        }
        guard parsed else { return nil }
        guard let report = try? transformer.transform(xs: &xs, ys: &ys), report.issues.isEmpty else { return nil }

        let decimals = self.decimals
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        var ok = true
        let output = [UInt8](unsafeUninitializedCapacity: lines * (2 * Self.maxNumberBytes + 2)) { out, initialized in
            guard let o = out.baseAddress else { initialized = 0; return }
            var k = 0
            for n in 0..<lines {
                guard Self.writeFixed(xs[n], scale: scale, decimals: decimals, into: o, at: &k) else { ok = false; break }
                o[k] = 44
                k += 1
                guard Self.writeFixed(ys[n], scale: scale, decimals: decimals, into: o, at: &k) else { ok = false; break }
                o[k] = 10
                k += 1
            }
            initialized = ok ? k : 0
        }
        guard ok else { return nil }
        return ConvertedPart(output: output, lineCount: lines, converted: lines, errors: [])
    }

    /// Parses `count` lines of `x,y` (LF or CRLF ends, the last one optional); false at the first
    /// line that is not exactly two plain decimals.
    private static func parsePairs(_ p: UnsafePointer<UInt8>, _ end: Int, _ xs: UnsafeMutablePointer<Double>,
                                   _ ys: UnsafeMutablePointer<Double>, _ count: Int) -> Bool
    {
        var i = 0
        for n in 0..<count {
            guard let x = decimal(p, &i, end), i < end, p[i] == 44 else { return false }
            i += 1
            guard let y = decimal(p, &i, end) else { return false }
            if i < end, p[i] == 13 { i += 1 }
            if i < end {
                guard p[i] == 10 else { return false }
                i += 1
            } else if n != count - 1 {
                return false
            }
            xs[n] = x
            ys[n] = y
        }
        return i == end
    }

    /// Exact powers of ten up to 10²².
    private static let powersOfTen: [Double] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13,
                                                 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]

    /// `[-]digits[.digits]` from `i`, leaving `i` at the first byte after it; nil when it is not
    /// one, or its mantissa reaches 2⁵³ or it has more than 22 decimals (left to the general path).
    @inline(__always)
    private static func decimal(_ p: UnsafePointer<UInt8>, _ i: inout Int, _ end: Int) -> Double? {
        var j = i
        var negative = false
        if j < end, p[j] == 45 {
            negative = true
            j += 1
        }
        var mantissa: UInt64 = 0
        var digits = 0, fraction = 0
        var sawPoint = false
        while j < end {
            let c = p[j]
            if c &- 48 < 10 {
                guard digits < 19 else { return nil }
                mantissa = mantissa &* 10 &+ UInt64(c &- 48)
                if mantissa != 0 { digits += 1 }
                if sawPoint { fraction += 1 }
            } else if c == 46, !sawPoint {
                sawPoint = true
            } else {
                break
            }
            j += 1
        }
        // At least one digit (not just "-" or "."), mantissa exact as a double.
        guard j > i + (negative ? 1 : 0) + (sawPoint ? 1 : 0), mantissa < (1 << 53), fraction <= 22 else { return nil }
        i = j
        let v = Double(mantissa) / powersOfTen[fraction]
        return negative ? -v : v
    }

    /// Writes `v` with `decimals` digits after the point at `o[k]`, as `CoordinateText.appendFixed`
    /// does; false when that would take its `String(format:)` fallback.
    @inline(__always)
    private static func writeFixed(_ v: Double, scale: Double, decimals: Int, into o: UnsafeMutablePointer<UInt8>,
                                   at k: inout Int) -> Bool
    {
        let scaled = (v * scale).rounded()
        guard v.isFinite, abs(scaled) < 9e15 else { return false }
        var n = Int64(scaled)
        if n < 0 {
            o[k] = 45
            k += 1
            n = -n
        }
        var whole = n, frac = n
        var divisor: Int64 = 1
        for _ in 0..<decimals { divisor *= 10 }
        whole = n / divisor
        frac = n - whole * divisor
        // Integer part, most significant digit first.
        var width = 1
        var bound: Int64 = 10
        while whole >= bound, width < 18 {
            width += 1
            bound *= 10
        }
        var w = whole
        var at = k + width - 1
        while at >= k {
            o[at] = UInt8(48 + w % 10)
            w /= 10
            at -= 1
        }
        k += width
        if decimals > 0 {
            o[k] = 46
            var at = k + decimals
            while at > k {
                o[at] = UInt8(48 + frac % 10)
                frac /= 10
                at -= 1
            }
            k += decimals + 1
        }
        return true
    }
}
