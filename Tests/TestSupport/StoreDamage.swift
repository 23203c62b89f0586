import Foundation

/// Damage done to a stored file on purpose, as a disk or another program might.
public enum StoreDamage {
    /// Flips the lowest bit of the last byte of every copy of `text` (UTF-8) in the file at
    /// `path` (every copy: a rewritten row may leave its old bytes behind); returns how many
    /// copies there were.
    @discardableResult
    public static func flipLastBit(of text: String, inFile path: String) throws -> Int {
        let url = URL(fileURLWithPath: path)
        var bytes = try Array(Data(contentsOf: url))
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return 0 }
        let hits = (0...bytes.count - needle.count).filter { bytes[$0..<$0 + needle.count].elementsEqual(needle) }
        for hit in hits { bytes[hit + needle.count - 1] ^= 0x01 }
        try Data(bytes).write(to: url)
        return hits.count
    }
}
