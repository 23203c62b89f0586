/// A 64-bit checksum over little-endian 8-byte words in four interleaved lanes. Bytes may
/// come in pieces of any length; a final partial word is zero-padded. Used by the graph file,
/// the place DB and the rows of the party store to detect damaged bytes (not against forgery).
public struct Checksum: Sendable {
    private var lanes: (UInt64, UInt64, UInt64, UInt64) = (0x243F_6A88_85A3_08D3, 0x1319_8A2E_0370_7344,
                                                            0xA409_3822_299F_31D0, 0x082E_FA98_EC4E_6C89)
    private var words: UInt64 = 0
    private var pending: UInt64 = 0
    private var pendingBytes = 0

    public init() {}

    @inline(__always)
    private static func mix(_ h: UInt64, _ w: UInt64) -> UInt64 {
        var x = (h ^ w) &* 0x9E37_79B9_7F4A_7C15
        x ^= x >> 29
        return x
    }

    @inline(__always)
    private mutating func word(_ w: UInt64) {
        switch words & 3 {
        case 0: lanes.0 = Self.mix(lanes.0, w)
        case 1: lanes.1 = Self.mix(lanes.1, w)
        case 2: lanes.2 = Self.mix(lanes.2, w)
        default: lanes.3 = Self.mix(lanes.3, w)
        }
        words += 1
    }

    /// Adds `bytes` to the checksum.
    public mutating func add(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        var i = 0
        let n = bytes.count
        while pendingBytes > 0 && i < n {
            pending |= UInt64(bytes[i]) << (8 * UInt64(pendingBytes))
            pendingBytes += 1
            i += 1
            if pendingBytes == 8 { word(pending); pending = 0; pendingBytes = 0 }
        }
        while i + 8 <= n && words & 3 != 0 {
            word(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
            i += 8
        }
        var (a, b, c, d) = lanes
        var blocks: UInt64 = 0
        while i + 32 <= n {
            a = Self.mix(a, UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
            b = Self.mix(b, UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)))
            c = Self.mix(c, UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self)))
            d = Self.mix(d, UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)))
            i += 32
            blocks += 1
        }
        lanes = (a, b, c, d)
        words += 4 * blocks
        while i + 8 <= n {
            word(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
            i += 8
        }
        while i < n {
            pending |= UInt64(bytes[i]) << (8 * UInt64(pendingBytes))
            pendingBytes += 1
            i += 1
        }
    }

    /// The checksum of every byte added so far.
    public var value: UInt64 {
        var copy = self
        if copy.pendingBytes > 0 { copy.word(copy.pending) }
        let (a, b, c, d) = copy.lanes
        var h = Self.mix(Self.mix(Self.mix(Self.mix(copy.words, a), b), c), d)
        h ^= h >> 31
        return h &* 0xBF58_476D_1CE4_E5B9
    }
}
