import Foundation
import Geo
import Places

/// Turns a row's place text (`서울역`, `광화문`) into a coordinate with the places engine.
///
/// The answer is the top search result ranked near `bias` (the centre of the road network),
/// accepted only when its score reaches `minimumScore`: the search is forgiving (typos,
/// prefixes, 초성), and below that score its best guess is a different place more often than
/// not (`서울특별시청` → a bus stop named 서울특별시어린이병원…), so the row fails with
/// `unknown_place` rather than being priced to the wrong spot. Answers are cached (a batch
/// names the same places over and over); the cache is bounded.
public final class PlaceGeocoder: @unchecked Sendable {
    public let index: PlaceIndex
    /// Where ambiguous names are resolved towards (`시청` → Seoul's, not Daejeon's).
    public let bias: Coordinate
    /// The lowest search score accepted as "this is the place".
    public let minimumScore: Double
    /// Most distinct place texts remembered.
    public let cacheLimit: Int

    private let lock = NSLock()
    private var cache: [String: Result<Place, RowError>] = [:]

    /// A whole-name match of a station or a stop scores about 1.3–1.5; a one-jamo typo about 1.0;
    /// a mere shared prefix 0.5–0.8.
    public static let defaultMinimumScore = 1.0

    public init(index: PlaceIndex, bias: Coordinate, minimumScore: Double = PlaceGeocoder.defaultMinimumScore,
                cacheLimit: Int = 100_000)
    {
        self.index = index
        self.bias = bias
        self.minimumScore = minimumScore
        self.cacheLimit = cacheLimit
    }

    /// The place `text` names, or `unknown_place` naming the column and the text.
    public func locate(_ text: String, column: String) -> Result<Place, RowError> {
        lock.lock()
        let cached = cache[text]
        lock.unlock()
        if let cached { return cached.mapError { RowError($0.code, "\(column) " + $0.message) } }

        let result = search(text)
        lock.lock()
        if cache.count >= cacheLimit { cache.removeAll(keepingCapacity: true) }
        cache[text] = result
        lock.unlock()
        return result.mapError { RowError($0.code, "\(column) " + $0.message) }
    }

    /// The search itself; messages leave out the column name (added by `locate`).
    private func search(_ text: String) -> Result<Place, RowError> {
        let shown = RowParser.excerpt(text)
        let hits: [PlaceHit]
        do {
            hits = try index.search(PlaceQuery(text: text, near: bias, limit: 1)).places
        } catch {
            return .failure(RowError(.unknownPlace, "'\(shown)' cannot be searched: \(error)"))
        }
        guard let top = hits.first else {
            return .failure(RowError(.unknownPlace, "'\(shown)' matches no known place"))
        }
        guard top.score >= minimumScore else {
            return .failure(RowError(.unknownPlace, "'\(shown)' matches no place well enough (the closest is '\(top.place.name)', \(top.place.address))"))
        }
        return .success(top.place)
    }
}
