import Foundation

/// Buffered OSM XML output (nodes, ways, restriction-style relations) with fast number
/// formatting, for the files the engine writes for other tools: `taxipot synth-osm`'s synthetic
/// cities and `taxipot export osm`'s node-link network.
package struct OSMXMLWriter {
    let file: UnsafeMutablePointer<FILE>
    var buffer: [UInt8] = []
    /// Bytes handed to the file so far.
    package private(set) var written = 0
    /// A write came short (disk full, …): the file is incomplete.
    package private(set) var failed = false

    package init(file: UnsafeMutablePointer<FILE>) {
        self.file = file
        buffer.reserveCapacity(1 << 20)
    }

    package mutating func flush() {
        if !buffer.isEmpty {
            let n = buffer.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            if n != buffer.count { failed = true }
            written += buffer.count
            buffer.removeAll(keepingCapacity: true)
        }
    }

    /// Raw markup (no escaping).
    package mutating func text(_ s: String) {
        buffer.append(contentsOf: s.utf8)
        if buffer.count >= 1 << 20 { flush() }
    }

    /// `s` as an attribute value: `&`, `<`, `>`, `"` and `'` escaped; other control characters
    /// (not allowed in XML 1.0) written as spaces.
    package mutating func attribute(_ s: String) {
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "&"): buffer.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): buffer.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): buffer.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): buffer.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "'"): buffer.append(contentsOf: "&apos;".utf8)
            case 0..<0x20: buffer.append(0x20)
            default: buffer.append(b)
            }
        }
    }

    package mutating func int(_ v: Int) {
        if v < 0 { buffer.append(45) }
        var x = v.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat { d[n] = UInt8(48 + x % 10); x /= 10; n += 1 } while x > 0
            for k in stride(from: n - 1, through: 0, by: -1) { buffer.append(d[k]) }
        }
    }

    /// A fixed-point 1e-7 degree value as decimal text.
    package mutating func degrees(_ v: Int32) {
        let m = Int(v)
        if m < 0 { buffer.append(45) }
        let a = abs(m)
        int(a / 10_000_000)
        buffer.append(46)
        let frac = a % 10_000_000
        var divisor = 1_000_000
        while divisor > 0 {
            buffer.append(UInt8(48 + frac / divisor % 10))
            divisor /= 10
        }
    }

    /// A node at (latitude, longitude) in 1e-7 degrees.
    package mutating func node(id: Int, _ p: (Int32, Int32)) {
        text("  <node id=\""); int(id); text("\" lat=\""); degrees(p.0); text("\" lon=\""); degrees(p.1); text("\" version=\"1\"/>\n")
    }

    package mutating func way(id: Int, refs: [Int], tags: [(String, String)]) {
        text("  <way id=\""); int(id); text("\" version=\"1\">\n")
        for r in refs { text("    <nd ref=\""); int(r); text("\"/>\n") }
        self.tags(tags)
        text("  </way>\n")
    }

    /// A relation of a from-way, a via-node and a to-way (a turn restriction).
    package mutating func relation(id: Int, from: Int, via: Int, to: Int, tags: [(String, String)]) {
        text("  <relation id=\""); int(id); text("\" version=\"1\">\n")
        text("    <member type=\"way\" ref=\""); int(from); text("\" role=\"from\"/>\n")
        text("    <member type=\"node\" ref=\""); int(via); text("\" role=\"via\"/>\n")
        text("    <member type=\"way\" ref=\""); int(to); text("\" role=\"to\"/>\n")
        self.tags(tags)
        text("  </relation>\n")
    }

    private mutating func tags(_ tags: [(String, String)]) {
        for (k, v) in tags { text("    <tag k=\""); attribute(k); text("\" v=\""); attribute(v); text("\"/>\n") }
    }
}
