/// Strict parsing of the number forms that requests and files carry.
public enum NumberParsing {
    /// A finite Double from plain decimal text (no hex, no "nan"/"inf", no spaces).
    @inlinable public static func finiteDouble<S: StringProtocol>(_ text: S) -> Double? {
        guard !text.isEmpty, text.utf8.count <= 64 else { return nil }
        for c in text.utf8 {
            switch c {
            case 48...57, 43, 45, 46, 101, 69: continue  // digits + - . e E
            default: return nil
            }
        }
        guard let v = Double(text), v.isFinite else { return nil }
        return v
    }
}

extension NumberParsing {
    /// Plain decimal text, `-?D{1,integerDigits}(.D+)?` (no exponent, `+`, spaces or bare
    /// point): the number form of the API's query patterns (`APISchemas.numberText`), no more and
    /// no less; nil for any other text.
    public static func plainDecimal(_ text: Substring, integerDigits: Int) -> Double? {
        let u = text.utf8
        var i = u.startIndex
        if i < u.endIndex, u[i] == UInt8(ascii: "-") { i = u.index(after: i) }
        var whole = 0
        while i < u.endIndex, (48...57).contains(u[i]) { whole += 1; i = u.index(after: i) }
        guard (1...integerDigits).contains(whole) else { return nil }
        if i < u.endIndex {
            guard u[i] == UInt8(ascii: ".") else { return nil }
            i = u.index(after: i)
            var fraction = 0
            while i < u.endIndex, (48...57).contains(u[i]) { fraction += 1; i = u.index(after: i) }
            guard fraction > 0, i == u.endIndex else { return nil }
        }
        return Double(text)
    }
}

extension Coordinate {
    /// Parses `"lon,lat"`; nil unless both are finite numbers within ±180 / ±90.
    public static func parse<S: StringProtocol>(_ text: S) -> Coordinate? {
        parse(Substring(text))
    }

    /// `parse` on a substring (non-generic: the query path calls it for every point).
    public static func parse(_ text: Substring) -> Coordinate? {
        let u = text.utf8
        guard let comma = u.firstIndex(of: UInt8(ascii: ",")) else { return nil }
        let after = u.index(after: comma)
        guard !u[after...].contains(UInt8(ascii: ",")),
              let lon = NumberParsing.finiteDouble(text[..<comma].trimmingSpaces()),
              let lat = NumberParsing.finiteDouble(text[after...].trimmingSpaces())
        else { return nil }
        let c = Coordinate(lon: lon, lat: lat)
        return c.isValid ? c : nil
    }

    /// Parses `"lon,lat"` in the API's decimal-degree form, nil for any other text: each number
    /// `-?D(.D+)?` (no exponent, `+`, or spaces) with a longitude of at most three integer digits
    /// (three only from 100, no leading zero) within ±180 and a latitude of at most two within
    /// ±90, any number of decimals. This is exactly the language of the OpenAPI document's point
    /// pattern (`APISchemas.pointText`), so a point the document calls valid is never a 400.
    public static func parseDegrees(_ text: Substring) -> Coordinate? {
        let u = text.utf8
        guard let comma = u.firstIndex(of: UInt8(ascii: ",")),
              let lon = degrees(text[..<comma], digits: 3, limit: 180),
              let lat = degrees(text[u.index(after: comma)...], digits: 2, limit: 90)
        else { return nil }
        return Coordinate(lon: lon, lat: lat)
    }

    /// `"lon,lat;lon,lat;…"` in the form of `parseDegrees`; nil when any pair is not.
    public static func parseDegreesList<S: StringProtocol>(_ text: S) -> [Coordinate]? {
        var out = [Coordinate]()
        for part in Substring(text).split(separator: ";", omittingEmptySubsequences: false) {
            guard let c = parseDegrees(part) else { return nil }
            out.append(c)
        }
        return out
    }

    /// A longitude in the form of `parseDegrees` (`APISchemas.lonText`): `-?D(.D+)?`, at most
    /// three integer digits, within ±180; nil for any other text.
    public static func parseLongitude(_ text: Substring) -> Double? { degrees(text, digits: 3, limit: 180) }

    /// A latitude in the form of `parseDegrees` (`APISchemas.latText`): at most two integer
    /// digits, within ±90; nil for any other text.
    public static func parseLatitude(_ text: Substring) -> Double? { degrees(text, digits: 2, limit: 90) }

    /// `-?D(.D+)?` with 1–`digits` integer digits (`NumberParsing.plainDecimal`), plus the
    /// degree rules of the pattern: a leading zero only below 100, at most `limit` in magnitude
    /// (`limit` itself only with zero decimals).
    static func degrees(_ text: Substring, digits: Int, limit: Int) -> Double? {
        guard let v = NumberParsing.plainDecimal(text, integerDigits: digits) else { return nil }
        let unsigned = text.utf8.first == UInt8(ascii: "-") ? text.utf8.dropFirst() : text.utf8[...]
        let whole = unsigned.prefix { (48...57).contains($0) }
        guard whole.count < 3 || whole.first == UInt8(ascii: "1") else { return nil }
        let magnitude = whole.reduce(0) { $0 * 10 + Int($1 - 48) }
        let zeroFraction = unsigned.dropFirst(whole.count).allSatisfy { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "0") }
        guard magnitude < limit || magnitude == limit && zeroFraction else { return nil }
        return v
    }

    /// Parses `"lon,lat;lon,lat;…"`; nil when any pair is invalid.
    public static func parseList<S: StringProtocol>(_ text: S) -> [Coordinate]? {
        var out = [Coordinate]()
        for part in text.split(separator: ";", omittingEmptySubsequences: false) {
            guard let c = parse(part) else { return nil }
            out.append(c)
        }
        return out
    }
}

extension StringProtocol {
    /// The text without leading and trailing ASCII spaces and tabs.
    public func trimmingSpaces() -> Substring {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return s
    }
}
