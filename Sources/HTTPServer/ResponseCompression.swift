import CLibDeflate
import CZlib
import Foundation

/// gzip (RFC 1952) for answers to clients that send `Accept-Encoding: gzip`: written by
/// libdeflate (whole-buffer, about twice zlib's speed at level 1 on cluster answers, and a
/// smaller answer; docs/DESIGN.md section 4), read back by zlib.
///
/// Compressors are kept in a small pool: allocating one costs several microseconds and a few
/// hundred KB, which would otherwise show for a few-KB answer.
public enum Gzip {
    /// libdeflate level 1, its fastest: JSON of coordinates still compresses 5-6x, and the cost
    /// per answer stays in tens of microseconds.
    static let level: Int32 = 1

    private final class Compressor {
        let handle: OpaquePointer?
        init() { handle = libdeflate_alloc_compressor(Gzip.level) }
        deinit { libdeflate_free_compressor(handle) }
    }

    private final class Pool: @unchecked Sendable {
        let lock = NSLock()
        var free: [Compressor] = []
    }
    private static let pool = Pool()

    /// `input` gzip-compressed, or nil if libdeflate failed (the caller then sends it as it is).
    public static func compress(_ input: [UInt8]) -> [UInt8]? {
        pool.lock.lock()
        let compressor = pool.free.popLast() ?? Compressor()
        pool.lock.unlock()
        guard let handle = compressor.handle else { return nil }
        defer {
            pool.lock.lock()
            if pool.free.count < 16 { pool.free.append(compressor) }
            pool.lock.unlock()
        }
        let bound = libdeflate_gzip_compress_bound(handle, input.count)
        let out = [UInt8](unsafeUninitializedCapacity: bound) { buf, count in
            count = input.withUnsafeBytes { inp in
                libdeflate_gzip_compress(handle, inp.baseAddress, inp.count, buf.baseAddress, bound)
            }
        }
        return out.isEmpty ? nil : out
    }

    /// The bytes of a gzip stream, or nil when it is not one (for tests and clients).
    public static func decompress(_ input: [UInt8]) -> [UInt8]? {
        var z = z_stream()
        guard inflateInit2_(&z, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&z) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var status = Z_OK
        input.withUnsafeBufferPointer { inp in
            z.next_in = UnsafeMutablePointer(mutating: inp.baseAddress)
            z.avail_in = uInt(inp.count)
            while status == Z_OK {
                chunk.withUnsafeMutableBufferPointer { c in
                    z.next_out = c.baseAddress
                    z.avail_out = uInt(c.count)
                    status = inflate(&z, Z_NO_FLUSH)
                    out.append(contentsOf: c[0..<(c.count - Int(z.avail_out))])
                }
                if status == Z_OK && z.avail_in == 0 { status = Z_BUF_ERROR }  // truncated
            }
        }
        return status == Z_STREAM_END ? out : nil
    }

    /// True when an `Accept-Encoding` value admits gzip (listed, or `*`, without `q=0`).
    public static func isAccepted(by acceptEncoding: String) -> Bool {
        var star = false
        for item in acceptEncoding.split(separator: ",") {
            let parts = item.split(separator: ";")
            let coding = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
            let refused = parts.dropFirst().contains { p in
                let kv = p.trimmingCharacters(in: .whitespaces).lowercased()
                guard kv.hasPrefix("q=") else { return false }
                return (Double(kv.dropFirst(2)) ?? 1) <= 0
            }
            if coding == "gzip" || coding == "x-gzip" { return !refused }
            if coding == "*" { star = !refused }
        }
        return star
    }
}

/// Recently sent gzip forms of cacheable answers, by the hash of their identity body: an answer
/// sent again (a popular viewport, a party polled by its riders) is compressed once. Each entry
/// keeps the identity bytes too, and a hit compares them in full, so a hash collision can only
/// cost a compression, never send a wrong body. Bounded by `capacityBytes` (oldest out first).
final class GzipCache: @unchecked Sendable {
    private struct Entry {
        let identity: [UInt8]
        let packed: [UInt8]
    }
    private let lock = NSLock()
    private var entries: [UInt64: Entry] = [:]
    private var order: [UInt64] = []
    private var orderHead = 0
    private var bytes = 0
    let capacityBytes: Int

    init(capacityBytes: Int) { self.capacityBytes = capacityBytes }

    /// The gzip form of `body` (whose `ETag.hash` is `hash`), from the cache or compressed now.
    func packed(_ body: [UInt8], hash: UInt64) -> [UInt8]? {
        lock.lock()
        let hit = entries[hash]
        lock.unlock()
        if let hit, Self.sameBytes(hit.identity, body) { return hit.packed }
        guard let packed = Gzip.compress(body) else { return nil }
        let size = body.count + packed.count
        guard size <= capacityBytes / 8 else { return packed }
        lock.lock()
        defer { lock.unlock() }
        if let old = entries.updateValue(Entry(identity: body, packed: packed), forKey: hash) {
            bytes -= old.identity.count + old.packed.count
        } else {
            order.append(hash)
        }
        bytes += size
        while bytes > capacityBytes, orderHead < order.count {
            if let gone = entries.removeValue(forKey: order[orderHead]) { bytes -= gone.identity.count + gone.packed.count }
            orderHead += 1
        }
        if orderHead > 4096 && orderHead * 2 > order.count {
            order.removeFirst(orderHead)
            orderHead = 0
        }
        return packed
    }

    /// `a == b` through memcmp: Array's own `==` goes byte by byte, several microseconds for a
    /// 16 KB answer on every hit.
    static func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && a.withUnsafeBytes { x in b.withUnsafeBytes { y in a.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, a.count) == 0 } }
    }
}
