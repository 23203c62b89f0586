import Foundation

/// Instants and Korean clock time.
///
/// Korea has kept UTC+9 with no daylight saving since 1988, so the Asia/Seoul clock is a
/// fixed offset. Instants are Unix seconds (UTC).
public enum SeoulTime {
    public static let utcOffsetSeconds: Int64 = 9 * 3600

    /// Parses ISO 8601: `2024-05-01T22:30:00+09:00`, `…Z`, fractional seconds, or a local
    /// date-time with no offset (read as Asia/Seoul), or a date alone (midnight in Seoul).
    /// Returns nil when the text is not such a date-time or names an impossible date.
    public static func parse(_ text: String) -> Double? {
        let b = Array(text.utf8)
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= b.count else { return nil }
            var v = 0
            for k in 0..<n {
                let c = b[i + k]
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            i += n
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect(45), let month = digits(2), expect(45), let day = digits(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year, month), year >= 1900 else { return nil }
        var hour = 0, minute = 0, second = 0
        var frac = 0.0
        var offset = utcOffsetSeconds
        if i < b.count {
            guard b[i] == 84 || b[i] == 32 || b[i] == 116 else { return nil }  // 'T', ' ', 't'
            i += 1
            guard let h = digits(2), expect(58), let m = digits(2) else { return nil }
            hour = h; minute = m
            if expect(58) {
                guard let s = digits(2) else { return nil }
                second = s
                if i < b.count, b[i] == 46 || b[i] == 44 {
                    i += 1
                    var scale = 0.1
                    var any = false
                    while i < b.count, b[i] >= 48, b[i] <= 57 {
                        frac += Double(b[i] - 48) * scale
                        scale /= 10
                        i += 1
                        any = true
                    }
                    guard any else { return nil }
                }
            }
            guard hour <= 24, minute <= 59, second <= 60 else { return nil }
            if hour == 24 && (minute != 0 || second != 0) { return nil }
            if i < b.count {
                if b[i] == 90 || b[i] == 122 {  // Z
                    offset = 0
                    i += 1
                } else if b[i] == 43 || b[i] == 45 {
                    let sign: Int64 = b[i] == 43 ? 1 : -1
                    i += 1
                    guard let oh = digits(2) else { return nil }
                    var om = 0
                    if expect(58) {
                        guard let m = digits(2) else { return nil }
                        om = m
                    } else if let m = digits(2) {
                        om = m
                    }
                    guard oh <= 18, om <= 59 else { return nil }
                    offset = sign * Int64(oh * 3600 + om * 60)
                } else {
                    return nil
                }
            }
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(year, month, day)
        let local = days * 86400 + Int64(hour * 3600 + minute * 60 + second)
        return Double(local - offset) + frac
    }

    /// Seconds since local (Seoul) midnight for the instant, 0 ..< 86400.
    public static func secondOfDay(_ instant: Double) -> Double {
        let local = instant + Double(utcOffsetSeconds)
        let r = local.truncatingRemainder(dividingBy: 86400)
        return r < 0 ? r + 86400 : r
    }

    /// Local (Seoul) hour of day, 0–23.
    public static func hour(_ instant: Double) -> Int { Int(secondOfDay(instant) / 3600) }

    /// The instant of the local (Seoul) midnight that starts the instant's day.
    public static func startOfDay(_ instant: Double) -> Double { instant - secondOfDay(instant) }

    /// ISO 8601 text in Seoul time with a `+09:00` offset, whole seconds.
    public static func format(_ instant: Double) -> String {
        var out = [UInt8]()
        out.reserveCapacity(25)
        write(instant, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `format(_:)`'s text appended to `out` as UTF-8 (for JSON writers: no String in between).
    public static func write(_ instant: Double, into out: inout [UInt8]) {
        let local = Int64(instant.rounded(.down)) + utcOffsetSeconds
        var days = local / 86400
        var sod = local % 86400
        if sod < 0 { sod += 86400; days -= 1 }
        let (y, m, d) = civilFromDays(days)
        // The year in plain decimal, as "\(y)" prints it; the rest two digits each.
        if (1000...9999).contains(y) {
            out.append(UInt8(truncatingIfNeeded: 48 + y / 1000))
            out.append(UInt8(truncatingIfNeeded: 48 + y / 100 % 10))
            out.append(UInt8(truncatingIfNeeded: 48 + y / 10 % 10))
            out.append(UInt8(truncatingIfNeeded: 48 + y % 10))
        } else {
            out.append(contentsOf: String(y).utf8)
        }
        func two(_ v: Int64, after separator: UInt8) {
            out.append(separator)
            out.append(UInt8(truncatingIfNeeded: 48 + v / 10))
            out.append(UInt8(truncatingIfNeeded: 48 + v % 10))
        }
        two(Int64(m), after: UInt8(ascii: "-"))
        two(Int64(d), after: UInt8(ascii: "-"))
        two(sod / 3600, after: UInt8(ascii: "T"))
        two(sod % 3600 / 60, after: UInt8(ascii: ":"))
        two(sod % 60, after: UInt8(ascii: ":"))
        out.append(contentsOf: "+09:00".utf8)
    }

    /// Now, as Unix seconds.
    public static func now() -> Double { Date().timeIntervalSince1970 }

    static func daysInMonth(_ y: Int, _ m: Int) -> Int {
        switch m {
        case 2: return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int64 {
        let y = Int64(m <= 2 ? y0 - 1 : y0)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64((m + 9) % 12)
        let doy = (153 * mp + 2) / 5 + Int64(d) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    static func civilFromDays(_ z0: Int64) -> (Int64, Int, Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = Int(doy - (153 * mp + 2) / 5 + 1)
        let m = Int(mp < 10 ? mp + 3 : mp - 9)
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
