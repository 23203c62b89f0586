/// Strict parsing of the number forms that requests and files carry.
public enum NumberParsing {
    /// A finite Double from plain decimal text (no hex, no "nan"/"inf", no spaces).
    public static func finiteDouble<S: StringProtocol>(_ text: S) -> Double? {
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
