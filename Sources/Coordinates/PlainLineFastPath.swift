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
        // Every line holds at least "0,0" and a line end (the last one may lack it).
        let capacity = (bytes.count + 1) / 4 + 1
        var lines: Int? = nil
        var ys: [Double] = []
        var xs = [Double](unsafeUninitializedCapacity: capacity) { bx, xCount in
            ys = [Double](unsafeUninitializedCapacity: capacity) { by, yCount in
                lines = Self.parsePairs(base, bytes.count, bx.baseAddress!, by.baseAddress!, capacity)
                yCount = lines ?? 0
            }
            xCount = lines ?? 0
        }
        guard let lines else { return nil }
        let (inputX, inputY) = (xs, ys)
        guard let report = try? transformer.transform(xs: &xs, ys: &ys), report.issues.isEmpty else { return nil }
        ties.settle(xs: &xs, ys: &ys, inputX: inputX, inputY: inputY)

        var ok = true
        let output = [UInt8](unsafeUninitializedCapacity: lines * (2 * Self.maxNumberBytes + 2)) { out, initialized in
            guard let o = out.baseAddress else { initialized = 0; return }
            let k = xs.withUnsafeBufferPointer { bx in
                ys.withUnsafeBufferPointer { by in
                    // One loop per decimals value, so that every divisor is a constant.
                    switch decimals {
                    case 3: return Self.writeLines(bx, by, decimals: 3, into: o)
                    case 8: return Self.writeLines(bx, by, decimals: 8, into: o)
                    default: return Self.writeLines(bx, by, decimals: decimals, into: o)
                    }
                }
            }
            ok = k != nil
            initialized = k ?? 0
        }
        guard ok else { return nil }
        return ConvertedPart(output: output, lineCount: lines, converted: lines, errors: [])
    }

    /// Writes `x,y` lines at `o`: the bytes written, or nil when a number needs the general path.
    @inline(__always)
    private static func writeLines(_ xs: UnsafeBufferPointer<Double>, _ ys: UnsafeBufferPointer<Double>, decimals: Int,
                                   into o: UnsafeMutablePointer<UInt8>) -> Int?
    {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        return digitPairs.withUnsafeBufferPointer { pairs -> Int? in
            let table = pairs.baseAddress!
            var k = 0
            for n in 0..<xs.count {
                guard writeFixed(xs[n], scale: scale, decimals: decimals, pairs: table, into: o, at: &k) else { return nil }
                o[k] = 44
                k += 1
                guard writeFixed(ys[n], scale: scale, decimals: decimals, pairs: table, into: o, at: &k) else { return nil }
                o[k] = 10
                k += 1
            }
            return k
        }
    }

    /// Parses lines of `x,y` (LF or CRLF ends, the last one optional) up to `capacity` of them;
    /// the number of lines, or nil at the first line that is not exactly two plain decimals.
    private static func parsePairs(_ p: UnsafePointer<UInt8>, _ end: Int, _ xs: UnsafeMutablePointer<Double>,
                                   _ ys: UnsafeMutablePointer<Double>, _ capacity: Int) -> Int?
    {
        powersOfTen.withUnsafeBufferPointer { table -> Int? in
            let powers = table.baseAddress!
            var i = 0
            var n = 0
            while i < end, n < capacity {
                guard let x = decimal(p, &i, end, powers), i < end, p[i] == 44 else { return nil }
                i += 1
                guard let y = decimal(p, &i, end, powers) else { return nil }
                if i < end, p[i] == 13 { i += 1 }
                if i < end {
                    guard p[i] == 10 else { return nil }
                    i += 1
                }
                xs[n] = x
                ys[n] = y
                n += 1
            }
            return i == end ? n : nil
        }
    }

    /// "00", "01", … "99".
    static let digitPairs: [UInt8] = {
        var table: [UInt8] = []
        for value in 0..<100 {
            let tens: Int = value / 10, ones: Int = value % 10
            table.append(UInt8(48 + tens))
            table.append(UInt8(48 + ones))
        }
        return table
    }()

    /// Exact powers of ten up to 10²².
    static let powersOfTen: [Double] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13,
                                                 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]

    /// `[-]digits[.digits]` from `i`, leaving `i` at the first byte after it; nil when it is not
    /// one, or its mantissa reaches 2⁵³ or it has more than 22 decimals (left to the general path).
    @inline(__always)
    static func decimal(_ p: UnsafePointer<UInt8>, _ i: inout Int, _ end: Int, _ powers: UnsafePointer<Double>) -> Double? {
        var j = i
        let negative = j < end && p[j] == 45
        if negative { j += 1 }
        var mantissa: UInt64 = 0
        let intStart = j
        while j < end, p[j] &- 48 < 10 {
            mantissa = mantissa &* 10 &+ UInt64(p[j] &- 48)
            j += 1
        }
        let intDigits = j - intStart
        var fraction = 0
        if j < end, p[j] == 46 {
            j += 1
            let fracStart = j
            while j < end, p[j] &- 48 < 10 {
                mantissa = mantissa &* 10 &+ UInt64(p[j] &- 48)
                j += 1
            }
            fraction = j - fracStart
        }
        // At least one digit; at most 19 digits (no overflow, leading zeros included), the mantissa
        // exact as a double, and an exact power of ten to divide by.
        let digits = intDigits + fraction
        guard digits > 0, digits <= 19, mantissa < (1 << 53), fraction <= 22 else { return nil }
        i = j
        let v = Double(mantissa) / powers[fraction]
        return negative ? -v : v
    }

    /// The eight decimal digits of `v` (< 10⁸, leading zeros included) as ASCII, the first digit in
    /// the lowest byte; its four digit pairs are independent of each other.
    @inline(__always)
    static func eightDigits(_ v: UInt32, _ pairs: UnsafePointer<UInt8>) -> UInt64 {
        let high = v / 10000, low = v &- high &* 10000
        let a = high / 100, b = high &- a &* 100, c = low / 100, d = low &- c &* 100
        @inline(__always) func pair(_ r: UInt32) -> UInt64 {
            let i = 2 * Int(truncatingIfNeeded: r)
            return UInt64(pairs[i]) | UInt64(pairs[i + 1]) << 8
        }
        return pair(a) | pair(b) << 16 | pair(c) << 32 | pair(d) << 48
    }

    /// Writes `v` with `decimals` digits after the point at `o[k]`, as `CoordinateText.appendFixed`
    /// does (round half away from zero of v × 10^decimals, no "-" on zero); false when that might take
    /// its `String(format:)` fallback.
    @inline(__always)
    static func writeFixed(_ v: Double, scale: Double, decimals: Int, pairs: UnsafePointer<UInt8>,
                                   into o: UnsafeMutablePointer<UInt8>, at k: inout Int) -> Bool
    {
        let p = v * scale
        guard abs(p) < 8.9e15 else { return false }  // also false for NaN
        // Round half away from zero: truncate, then look at the exact remainder.
        var n = Int64(p)
        let rest = p - Double(n)
        if rest >= 0.5 { n += 1 } else if rest <= -0.5 { n -= 1 }
        if n < 0 {
            o[k] = 45
            k += 1
            n = -n
        }
        let m = UInt64(n)
        let whole: UInt64, frac: UInt32
        switch decimals {
        case 3: (whole, frac) = (m / 1000, UInt32(truncatingIfNeeded: m % 1000))
        case 8: (whole, frac) = (m / 100_000_000, UInt32(truncatingIfNeeded: m % 100_000_000))
        default:
            var divisor: UInt64 = 1
            for _ in 0..<decimals { divisor *= 10 }
            (whole, frac) = (m / divisor, UInt32(truncatingIfNeeded: m % divisor))
        }
        // Integer part, most significant digit first.
        if whole < 100_000_000 {
            // Eight digits from four independent pairs, leading zeros shifted out, stored at once
            // (the bytes past the width are overwritten next; the buffer has room for them).
            let w = UInt32(truncatingIfNeeded: whole)
            let width = 1 + (w >= 10 ? 1 : 0) + (w >= 100 ? 1 : 0) + (w >= 1000 ? 1 : 0) + (w >= 10000 ? 1 : 0)
                + (w >= 100_000 ? 1 : 0) + (w >= 1_000_000 ? 1 : 0) + (w >= 10_000_000 ? 1 : 0)
            let word = eightDigits(w, pairs) >> UInt64(8 * (8 - width))
            UnsafeMutableRawPointer(o + k).storeBytes(of: word.littleEndian, as: UInt64.self)
            k += width
        } else {
            var width = 1
            var bound: UInt64 = 10
            while whole >= bound, width < 18 {
                width += 1
                bound &*= 10
            }
            var w = whole
            var at = k + width
            while at - k >= 2 {
                let q = w / 100
                let r = Int(truncatingIfNeeded: w &- q &* 100)
                w = q
                o[at - 2] = pairs[2 * r]
                o[at - 1] = pairs[2 * r + 1]
                at -= 2
            }
            if at > k { o[k] = UInt8(truncatingIfNeeded: 48 &+ w) }
            k += width
        }
        guard decimals > 0 else { return true }
        o[k] = 46
        k += 1
        switch decimals {
        case 3:
            let hundreds = frac / 100
            let r = Int(truncatingIfNeeded: frac &- hundreds &* 100)
            o[k] = UInt8(truncatingIfNeeded: 48 &+ hundreds)
            o[k + 1] = pairs[2 * r]
            o[k + 2] = pairs[2 * r + 1]
        case 8:
            UnsafeMutableRawPointer(o + k).storeBytes(of: eightDigits(frac, pairs).littleEndian, as: UInt64.self)
        default:
            var f = frac
            var at = k + decimals - 1
            while at >= k {
                let q = f / 10
                o[at] = UInt8(truncatingIfNeeded: 48 &+ (f &- q &* 10))
                f = q
                at -= 1
            }
        }
        k += decimals
        return true
    }
}
