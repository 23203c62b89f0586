import Foundation

/// The fast path of `LineConverter` for plain `x,y` lines, or `x y` ones (`--delimiter space`, the
/// cs2cs habit), with no header and no columns: the common case of `taxipot transform`. It handles a run of lines only when every one is a plain pair of short
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
        // Every line holds at least "0,0" and a line end (the last one may lack it). The scratch
        // buffers are reused, so room they never touch costs nothing.
        let capacity = (bytes.count + 1) / 4 + 1
        return scratchPool.withScratch(capacity: capacity) { scratch -> ConvertedPart? in
            let (x, y, inputX, inputY) = (scratch.x, scratch.y, scratch.inputX, scratch.inputY)
            guard let lines = Self.parsePairs(base, bytes.count, x, y, capacity, whitespace: separator == .whitespace)
            else { return nil }
            inputX.update(from: x, count: lines)
            inputY.update(from: y, count: lines)
            guard let report = try? transformer.transform(x: UnsafeMutableBufferPointer(start: x, count: lines),
                                                          y: UnsafeMutableBufferPointer(start: y, count: lines)),
                  report.issues.isEmpty else { return nil }
            ties.settle(x: x, y: y, inputX: inputX, inputY: inputY, count: lines)

            var ok = true
            let output = [UInt8](unsafeUninitializedCapacity: lines * (2 * Self.maxNumberBytes + 2)) { out, initialized in
                guard let o = out.baseAddress else { initialized = 0; return }
                let bx = UnsafeBufferPointer(start: x, count: lines), by = UnsafeBufferPointer(start: y, count: lines)
                // One loop per decimals value, so that every divisor is a constant.
                let k: Int?
                switch decimals {
                case 3: k = Self.writeLines(bx, by, decimals: 3, separator: separator.outputByte, into: o)
                case 8: k = Self.writeLines(bx, by, decimals: 8, separator: separator.outputByte, into: o)
                default: k = Self.writeLines(bx, by, decimals: decimals, separator: separator.outputByte, into: o)
                }
                ok = k != nil
                initialized = k ?? 0
            }
            guard ok else { return nil }
            return ConvertedPart(output: output, lineCount: lines, converted: lines, errors: [])
        }
    }

    /// Writes `x,y` lines at `o`: the bytes written, or nil when a number needs the general path.
    @inline(__always)
    private static func writeLines(_ xs: UnsafeBufferPointer<Double>, _ ys: UnsafeBufferPointer<Double>, decimals: Int,
                                   separator: UInt8, into o: UnsafeMutablePointer<UInt8>) -> Int?
    {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        return digitPairs.withUnsafeBufferPointer { pairs -> Int? in
            let table = pairs.baseAddress!
            var k = 0
            for n in 0..<xs.count {
                guard writeFixed(xs[n], scale: scale, decimals: decimals, pairs: table, into: o, at: &k) else { return nil }
                o[k] = separator
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
                                   _ ys: UnsafeMutablePointer<Double>, _ capacity: Int, whitespace: Bool) -> Int?
    {
        powersOfTen.withUnsafeBufferPointer { table -> Int? in
            let powers = table.baseAddress!
            var i = 0
            var n = 0
            while i < end, n < capacity {
                if whitespace {
                    // `x y` as cs2cs reads it: blanks around and between (at least one between).
                    while i < end, p[i] == 32 || p[i] == 9 { i += 1 }
                    guard let x = decimal(p, &i, end, powers), i < end, p[i] == 32 || p[i] == 9 else { return nil }
                    while i < end, p[i] == 32 || p[i] == 9 { i += 1 }
                    guard let y = decimal(p, &i, end, powers) else { return nil }
                    while i < end, p[i] == 32 || p[i] == 9 { i += 1 }
                    xs[n] = x
                    ys[n] = y
                } else {
                    guard let x = decimal(p, &i, end, powers), i < end, p[i] == 44 else { return nil }
                    i += 1
                    guard let y = decimal(p, &i, end, powers) else { return nil }
                    xs[n] = x
                    ys[n] = y
                }
                if i < end, p[i] == 13 { i += 1 }
                if i < end {
                    guard p[i] == 10 else { return nil }
                    i += 1
                }
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
            // Eight digits at a time while eight bytes are digits (the 8 decimals of degrees at once).
            while end - j >= 8 {
                let word = UInt64(littleEndian: UnsafeRawPointer(p + j).loadUnaligned(as: UInt64.self))
                guard isEightDigits(word) else { break }
                mantissa = mantissa &* 100_000_000 &+ eightDigitsValue(word)
                j += 8
            }
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

    /// True when the eight bytes of `word` (first byte lowest) are all ASCII digits: each byte's
    /// high nibble is 3 and adding 6 keeps it 3 (no byte carries into the next when that holds).
    @inline(__always)
    static func isEightDigits(_ word: UInt64) -> Bool {
        (word & 0xF0F0_F0F0_F0F0_F0F0) | (((word &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0) >> 4)
            == 0x3333_3333_3333_3333
    }

    /// The value of eight ASCII digits (first digit in the lowest byte): pairs, then fours, then all
    /// eight combined by multiplications within the word.
    @inline(__always)
    static func eightDigitsValue(_ word: UInt64) -> UInt64 {
        var v = word &- 0x3030_3030_3030_3030
        v = v &* 10 &+ (v >> 8)  // each even byte: two digits' value (< 100)
        let pairs = v & 0x0000_00FF_0000_00FF, nextPairs = (v >> 16) & 0x0000_00FF_0000_00FF
        // (p0 × 100 + p1) × 10⁴ + (p2 × 100 + p3), gathered in the high half.
        return (pairs &* (100 + (1_000_000 << 32)) &+ nextPairs &* (1 + (10_000 << 32))) >> 32
    }

    /// The eight decimal digits of `v` (< 10⁸, leading zeros included) as ASCII, the first digit in
    /// the lowest byte: split into two 4-digit lanes, then four 2-digit lanes, then digits, each by
    /// a multiplication and shift that divides every lane by 100 or 10 at once (exact for these ranges:
    /// ⌊x × 10486 / 2²⁰⌋ = ⌊x / 100⌋ for x < 10⁴, ⌊x × 103 / 2¹⁰⌋ = ⌊x / 10⌋ for x < 100).
    @inline(__always)
    static func eightDigits(_ v: UInt64) -> UInt64 {
        let high = v / 10000, low = v &- high &* 10000
        let x = high | (low << 32)
        let hundreds = ((x &* 10486) >> 20) & 0x0000_007F_0000_007F
        let w = hundreds | ((x &- hundreds &* 100) << 16)
        let tens = ((w &* 103) >> 10) & 0x000F_000F_000F_000F
        return (tens | ((w &- tens &* 10) << 8)) | 0x3030_3030_3030_3030
    }

    /// Writes `v` with `decimals` digits after the point at `o[k]`, as `CoordinateText.appendFixed`
    /// does (round half away from zero of v × 10^decimals, no "-" on zero); false when that might take
    /// its `String(format:)` fallback.
    @inline(__always)
    static func writeFixed(_ v: Double, scale: Double, decimals: Int, pairs: UnsafePointer<UInt8>,
                                   into o: UnsafeMutablePointer<UInt8>, at k: inout Int) -> Bool
    {
        let p = v * scale
        let a = abs(p)
        guard a < 8.9e15 else { return false }  // also false for NaN
        // Round half away from zero: truncate |p|, then look at the exact remainder. No branch on
        // the remainder or the sign (both are coin flips for coordinates): the sign byte is always
        // stored and kept only for a negative value that does not round to zero. (Signed
        // conversions: a single instruction each way, unlike UInt64's.)
        let t = Int64(a)
        let m = UInt64(t &+ (a - Double(t) >= 0.5 ? 1 : 0))
        o[k] = 45
        k &+= p < 0 && m != 0 ? 1 : 0
        let whole: UInt64, frac: UInt64
        switch decimals {
        case 3: (whole, frac) = (m / 1000, m % 1000)
        case 8: (whole, frac) = (m / 100_000_000, m % 100_000_000)
        default:
            var divisor: UInt64 = 1
            for _ in 0..<decimals { divisor *= 10 }
            (whole, frac) = (m / divisor, m % divisor)
        }
        // Integer part, most significant digit first.
        if whole < 100_000_000 {
            // Eight digits, leading zeros (the lowest bytes) shifted out but one, stored at once
            // (the bytes past the width are overwritten next; the buffer has room for them).
            let digits = eightDigits(whole)
            let zeros = min((digits ^ 0x3030_3030_3030_3030).trailingZeroBitCount >> 3, 7)
            UnsafeMutableRawPointer(o + k).storeBytes(of: (digits >> UInt64(zeros << 3)).littleEndian, as: UInt64.self)
            k &+= 8 &- zeros
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
        switch decimals {
        case 3:
            // ".ddd" in one store.
            let d1 = frac / 100, r = frac &- d1 &* 100, d2 = (r &* 103) >> 10, d3 = r &- d2 &* 10
            let word = UInt32(truncatingIfNeeded: 0x2E | (d1 | 0x30) << 8 | (d2 | 0x30) << 16 | (d3 | 0x30) << 24)
            UnsafeMutableRawPointer(o + k).storeBytes(of: word.littleEndian, as: UInt32.self)
            k &+= 4
            return true
        case 8:
            o[k] = 46
            UnsafeMutableRawPointer(o + k + 1).storeBytes(of: eightDigits(frac).littleEndian, as: UInt64.self)
            k &+= 9
            return true
        default:
            o[k] = 46
            k += 1
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

/// The fast path's working buffers for one part (parsed points, kept inputs), reused by part after
/// part so that the memory is already faulted in and in cache. Used by one thread at a time.
final class PlainScratch {
    private(set) var capacity = 0
    private(set) var x = UnsafeMutablePointer<Double>.allocate(capacity: 1)
    private(set) var y = UnsafeMutablePointer<Double>.allocate(capacity: 1)
    private(set) var inputX = UnsafeMutablePointer<Double>.allocate(capacity: 1)
    private(set) var inputY = UnsafeMutablePointer<Double>.allocate(capacity: 1)

    /// Makes room for `count` points (contents are not kept).
    func reserve(_ count: Int) {
        guard count > capacity else { return }
        release()
        capacity = max(count, 2 * capacity)
        x = .allocate(capacity: capacity)
        y = .allocate(capacity: capacity)
        inputX = .allocate(capacity: capacity)
        inputY = .allocate(capacity: capacity)
    }

    private func release() {
        x.deallocate()
        y.deallocate()
        inputX.deallocate()
        inputY.deallocate()
    }

    deinit { release() }
}

/// A lock-protected stack of `PlainScratch`, shared by the threads converting parts.
final class PlainScratchPool: @unchecked Sendable {
    private let lock = NSLock()
    private var idle: [PlainScratch] = []

    /// Runs `body` with buffers for `capacity` points that no other thread uses meanwhile.
    func withScratch<R>(capacity: Int, _ body: (PlainScratch) -> R) -> R {
        lock.lock()
        let scratch = idle.popLast() ?? PlainScratch()
        lock.unlock()
        defer {
            lock.lock()
            if idle.count < 32 { idle.append(scratch) }
            lock.unlock()
        }
        scratch.reserve(capacity)
        return body(scratch)
    }
}
