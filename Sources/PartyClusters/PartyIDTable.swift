/// Party id → index in `PartyIndex.values`: an open-addressing hash table (linear probing,
/// backward-shift deletion) whose buckets hold the id's 64-bit hash and the index, so an
/// insert touches one bucket. The id itself is compared through a caller-given closure only
/// when the hashes match. Hashing is Swift's seeded `Hasher`, so ids cannot be chosen to
/// collide.
struct PartyIDTable: Sendable {
    private struct Bucket: Sendable {
        var hash: UInt64
        var value: Int32  // −1: empty
    }

    private var buckets: ContiguousArray<Bucket>
    private var mask: Int
    /// Number of ids held.
    private(set) var count = 0

    init(capacity: Int = 16) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        buckets = ContiguousArray(repeating: Bucket(hash: 0, value: -1), count: size)
        mask = size - 1
    }

    @inline(__always)
    static func hash(_ id: String) -> UInt64 {
        var h = Hasher()
        // Party ids are ASCII, so their UTF-8 bytes identify them (no Unicode normalisation).
        var id = id
        id.withUTF8 { h.combine(bytes: UnsafeRawBufferPointer($0)) }
        return UInt64(bitPattern: Int64(h.finalize()))
    }

    /// Makes room for `n` ids without growing.
    mutating func reserve(_ n: Int) {
        if n * 2 > buckets.count { rehash(size: n * 2) }
    }

    /// The value stored for the id whose hash is `h` and for which `isID(value)` holds.
    @inline(__always)
    func find(_ h: UInt64, _ isID: (Int32) -> Bool) -> Int32? {
        var i = Int(truncatingIfNeeded: h) & mask
        while true {
            let b = buckets[i]
            if b.value < 0 { return nil }
            if b.hash == h && isID(b.value) { return b.value }
            i = (i + 1) & mask
        }
    }

    /// Reads the first bucket an id with hash `h` would probe, and returns its value. Calling
    /// this for a batch of ids before inserting them lets their cache misses overlap (the
    /// loads are independent), which is most of the cost of a bulk insert.
    @inline(__always)
    func touch(_ h: UInt64) -> Int32 { buckets[Int(truncatingIfNeeded: h) & mask].value }

    /// Stores `value` for a new id with hash `h` (the caller has checked it is absent).
    mutating func insert(_ h: UInt64, _ value: Int32) {
        if (count + 1) * 2 > buckets.count { rehash(size: buckets.count * 2) }
        var i = Int(truncatingIfNeeded: h) & mask
        while buckets[i].value >= 0 { i = (i + 1) & mask }
        buckets[i] = Bucket(hash: h, value: value)
        count += 1
    }

    /// Replaces the value of the id with hash `h` matching `isID`; false when absent.
    mutating func update(_ h: UInt64, _ isID: (Int32) -> Bool, to value: Int32) -> Bool {
        var i = Int(truncatingIfNeeded: h) & mask
        while true {
            let b = buckets[i]
            if b.value < 0 { return false }
            if b.hash == h && isID(b.value) {
                buckets[i].value = value
                return true
            }
            i = (i + 1) & mask
        }
    }

    /// Removes the id with hash `h` matching `isID`; returns its value.
    mutating func remove(_ h: UInt64, _ isID: (Int32) -> Bool) -> Int32? {
        var i = Int(truncatingIfNeeded: h) & mask
        while true {
            let b = buckets[i]
            if b.value < 0 { return nil }
            if b.hash == h && isID(b.value) { break }
            i = (i + 1) & mask
        }
        let removed = buckets[i].value
        // Backward shift: pull later entries of the probe run into the hole.
        var hole = i
        var j = (i + 1) & mask
        while buckets[j].value >= 0 {
            let home = Int(truncatingIfNeeded: buckets[j].hash) & mask
            // Move j into the hole unless its home lies cyclically in (hole, j].
            let between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j)
            if !between {
                buckets[hole] = buckets[j]
                hole = j
            }
            j = (j + 1) & mask
        }
        buckets[hole] = Bucket(hash: 0, value: -1)
        count -= 1
        return removed
    }

    private mutating func rehash(size: Int) {
        var s = 16
        while s < size { s <<= 1 }
        let old = buckets
        buckets = ContiguousArray(repeating: Bucket(hash: 0, value: -1), count: s)
        mask = s - 1
        for b in old where b.value >= 0 {
            var i = Int(truncatingIfNeeded: b.hash) & mask
            while buckets[i].value >= 0 { i = (i + 1) & mask }
            buckets[i] = b
        }
    }
}
