import Foundation
import Geo

/// The place DB's checksum: the graph file's `Checksum` over every byte of the SQLite file,
/// kept in the file's own header, in the two 4-byte fields SQLite leaves to applications
/// (`user_version` at offset 60 and `application_id` at 68, big-endian; both counted as zero
/// while summing). `taxipot import places` seals the file once it is complete and closed;
/// opening it verifies the seal first, so a flipped bit is refused rather than served.
package enum PlaceFileChecksum {
    /// Offsets of the two 4-byte header fields holding the checksum (high half, low half).
    package static let fieldOffsets = (high: 60, low: 68)

    /// The stored and the computed checksum of the file at `path`.
    package static func read(path: String) throws(PlaceDatabaseError) -> (stored: UInt64, computed: UInt64) {
        guard let f = fopen(path, "rb") else {
            throw PlaceDatabaseError("\(path): cannot read the place database (\(String(cString: strerror(errno))))")
        }
        defer { fclose(f) }
        var checksum = Checksum()
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var offset = 0
        var stored: UInt64 = 0
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
            if n == 0 { break }
            if offset == 0 {
                guard n >= 100 else { throw PlaceDatabaseError("\(path): too short for a place database (\(n) bytes)") }
                for (field, shift) in [(fieldOffsets.high, 32), (fieldOffsets.low, 0)] as [(Int, UInt64)] {
                    var v: UInt64 = 0
                    for i in 0..<4 {
                        v = v << 8 | UInt64(chunk[field + i])
                        chunk[field + i] = 0
                    }
                    stored |= v << shift
                }
            }
            chunk.withUnsafeBytes { checksum.add(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            offset += n
        }
        guard ferror(f) == 0 else { throw PlaceDatabaseError("\(path): cannot read the place database (read error)") }
        guard offset > 0 else { throw PlaceDatabaseError("\(path): the place database is empty (0 bytes)") }
        return (stored, checksum.value)
    }

    /// Writes the checksum of the complete, closed file at `path` into its header, durably.
    package static func seal(path: String) throws(PlaceDatabaseError) {
        let value = try read(path: path).computed
        var bytes = [UInt8](repeating: 0, count: 8)
        for i in 0..<8 { bytes[i] = UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64(i))) }
        let fd = open(path, O_WRONLY)
        guard fd >= 0 else { throw PlaceDatabaseError("\(path): cannot seal the place database (\(String(cString: strerror(errno))))") }
        defer { close(fd) }
        let ok = bytes.withUnsafeBytes { b in
            pwrite(fd, b.baseAddress, 4, off_t(fieldOffsets.high)) == 4 && pwrite(fd, b.baseAddress! + 4, 4, off_t(fieldOffsets.low)) == 4
        }
        guard ok, fsync(fd) == 0 else {
            throw PlaceDatabaseError("\(path): cannot seal the place database (\(String(cString: strerror(errno))))")
        }
    }

    /// Throws, naming the file and saying to rebuild it, unless its checksum matches.
    package static func verify(path: String) throws(PlaceDatabaseError) {
        let (stored, computed) = try read(path: path)
        guard stored != 0 else {
            throw PlaceDatabaseError("\(path): the place database has no checksum (built by an older taxipot, or not by "
                + "'taxipot import places'); rebuild it with 'make data'")
        }
        guard stored == computed else {
            throw PlaceDatabaseError("\(path): checksum mismatch (stored \(hex(stored)), computed \(hex(computed))): the file is damaged "
                + "or was not written by 'taxipot import places'; rebuild it with 'make data'")
        }
    }

    private static func hex(_ v: UInt64) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
