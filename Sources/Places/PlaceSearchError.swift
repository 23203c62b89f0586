import Geo

/// A search request that cannot be answered as given: which parameter and what is wrong with
/// it (the API answers each case with a 400, `ErrorMapping`).
public enum PlaceSearchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `q` is missing, empty or only spaces and punctuation.
    case emptyQuery
    /// `q` is longer than `PlaceQuery.maximumLength` code points.
    case queryTooLong(length: Int)
    /// `category` is none of the known ones.
    case unknownCategory(String, known: [String])
    /// `near` is not "lon,lat" with finite values in range.
    case invalidNear(String)
    /// `rect` is not "west,south,east,north" with west ≤ east and south ≤ north.
    case invalidRect(String)
    /// `radius_m` is not a number from 1 to 20,000, or is given without `near`.
    case invalidRadius(String)
    /// `sort` is not accuracy or distance, or is distance without `near`.
    case invalidSort(String)
    /// `limit` is not from 1 to 50.
    case invalidLimit(String)
    /// `cursor` is not one this service issued for the same query.
    case invalidCursor(String)

    /// A human sentence naming the parameter and what is wrong.
    public var message: String {
        switch self {
        case .emptyQuery:
            return "parameter 'q' must contain a letter or digit"
        case .queryTooLong(let n):
            return "parameter 'q' is \(n) Unicode code points long; the maximum is \(PlaceQuery.maximumLength)"
        case .unknownCategory(let c, let known):
            return "unknown category '\(c.prefix(40))'; known categories: \(known.joined(separator: ", "))"
        case .invalidNear(let t):
            return "parameter 'near' must be 'lon,lat' in degrees (e.g. 127.0276,37.4979), got '\(t.prefix(60))'"
        case .invalidRect(let t):
            return "parameter 'rect' must be 'west,south,east,north' in degrees with west ≤ east and south ≤ north, got '\(t.prefix(80))'"
        case .invalidRadius(let why):
            return "parameter 'radius_m' \(why)"
        case .invalidSort(let why):
            return "parameter 'sort' \(why)"
        case .invalidLimit(let t):
            return "parameter 'limit' must be a whole number from 1 to \(PlaceQuery.maximumLimit), got '\(t.prefix(40))'"
        case .invalidCursor(let t):
            return "parameter 'cursor' '\(t.prefix(40))' is not a cursor from a previous page of this search"
        }
    }

    public var description: String { message }
}

extension PlaceQuery {
    /// Parses a `near` value "lon,lat".
    public static func parseNear(_ text: String) throws(PlaceSearchError) -> Coordinate {
        guard let c = Coordinate.parseDegrees(Substring(text)) else { throw .invalidNear(text) }
        return c
    }

    /// Parses a `rect` value "west,south,east,north".
    public static func parseRect(_ text: String) throws(PlaceSearchError) -> BoundingBox {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 4 else { throw .invalidRect(text) }
        var v: [Double] = []
        for p in parts {
            guard let d = NumberParsing.finiteDouble(p.trimmingSpaces()) else { throw .invalidRect(text) }
            v.append(d)
        }
        let box = BoundingBox(west: v[0], south: v[1], east: v[2], north: v[3])
        guard box.isValid, box.west <= box.east else { throw .invalidRect(text) }
        return box
    }

    /// Parses a `radius_m` value: metres from 1 to 20,000.
    public static func parseRadius(_ text: String) throws(PlaceSearchError) -> Double {
        guard let r = NumberParsing.finiteDouble(text), r >= 1, r <= maximumRadius else {
            throw .invalidRadius("must be a number of metres from 1 to \(Int(maximumRadius)), got '\(text.prefix(40))'")
        }
        return r
    }

    /// Parses a `sort` value.
    public static func parseSort(_ text: String) throws(PlaceSearchError) -> PlaceSort {
        guard let s = PlaceSort(rawValue: text) else {
            throw .invalidSort("must be 'accuracy' or 'distance', got '\(text.prefix(40))'")
        }
        return s
    }

    /// Parses a `limit` value.
    public static func parseLimit(_ text: String) throws(PlaceSearchError) -> Int {
        guard let n = Int(text), n >= 1, n <= maximumLimit else { throw .invalidLimit(text) }
        return n
    }

    /// Checks everything but the category (which needs the index): the text, the numbers and
    /// how the options combine. Returns the folded text.
    func validated() throws(PlaceSearchError) -> String {
        // In code points, as the OpenAPI document's maxLength counts (a combining mark counts).
        let length = text.unicodeScalars.count
        if length > PlaceQuery.maximumLength { throw .queryTooLong(length: length) }
        let folded = SearchText.fold(text)
        if folded.isEmpty { throw .emptyQuery }
        if let near, !near.isValid { throw .invalidNear(near.description) }
        if let rect, !(rect.isValid && rect.west <= rect.east) {
            throw .invalidRect("\(rect.west),\(rect.south),\(rect.east),\(rect.north)")
        }
        if let r = radiusMeters {
            guard r.isFinite, r >= 1, r <= PlaceQuery.maximumRadius else {
                throw .invalidRadius("must be a number of metres from 1 to \(Int(PlaceQuery.maximumRadius)), got \(r)")
            }
            if near == nil { throw .invalidRadius("needs 'near' (the centre of the circle)") }
        }
        if sort == .distance && near == nil { throw .invalidSort("'distance' needs 'near' (the point to measure from)") }
        if limit < 1 || limit > PlaceQuery.maximumLimit { throw .invalidLimit(String(limit)) }
        return folded
    }
}
