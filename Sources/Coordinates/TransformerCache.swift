import Foundation

/// Shared `CoordinateTransformer`s by (source, target), built on first use.
///
/// Names are resolved first, so `UTMK`, `utmk` and `EPSG:5179` share one transformer. The cache
/// keeps at most `capacity` transformers and drops the least recently used beyond that. Safe to
/// use from many threads.
public final class TransformerCache: @unchecked Sendable {
    private struct Key: Hashable {
        let source: CRSDescriptor
        let target: CRSDescriptor
    }

    private struct Entry {
        let transformer: CoordinateTransformer
        var lastUse: UInt64
    }

    /// A cache for the whole process.
    public static let shared = TransformerCache()

    /// The most transformers kept.
    public let capacity: Int
    private let lock = NSLock()
    private var entries: [Key: Entry] = [:]
    private var clock: UInt64 = 0

    public init(capacity: Int = 64) {
        self.capacity = max(1, capacity)
    }

    /// The transformer from the CRS named `from` to the one named `to`.
    ///
    /// Throws what `CoordinateTransformer.init(from:to:)` throws; failures are not cached.
    public func transformer(from: String, to: String) throws(CoordinateError) -> CoordinateTransformer {
        let key = try Key(source: CRSCatalog.resolve(from), target: CRSCatalog.resolve(to))
        if let hit = lookUp(key) { return hit }
        // Built outside the lock: PROJ may take milliseconds to find the operation.
        let made = try CoordinateTransformer(source: key.source, target: key.target)
        lock.lock()
        defer { lock.unlock() }
        clock += 1
        if let raced = entries[key] {
            entries[key]?.lastUse = clock
            return raced.transformer
        }
        if entries.count >= capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            entries.removeValue(forKey: oldest)
        }
        entries[key] = Entry(transformer: made, lastUse: clock)
        return made
    }

    private func lookUp(_ key: Key) -> CoordinateTransformer? {
        lock.lock()
        defer { lock.unlock() }
        guard entries[key] != nil else { return nil }
        clock += 1
        entries[key]?.lastUse = clock
        return entries[key]?.transformer
    }

    /// How many transformers the cache holds.
    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.count
    }
}
