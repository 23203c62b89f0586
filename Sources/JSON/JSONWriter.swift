/// Compact JSON serialisation straight into UTF-8 bytes.
///
/// Numbers with no fractional part (below 10¹⁵) print as integers; others in their shortest
/// form that reads back as the same double. Non-finite numbers print as `null` (JSON has none).
public enum JSONWriter {
    public static func bytes(_ value: JSONValue) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(256)
        write(value, into: &out)
        return out
    }

    public static func string(_ value: JSONValue) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    public static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: [110, 117, 108, 108])
        case .bool(let b): out.append(contentsOf: b ? Array("true".utf8) : Array("false".utf8))
        case .number(let d): writeNumber(d, into: &out)
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (k, v) in items.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                write(v, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (k, m) in members.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                writeString(m.0, into: &out)
                out.append(UInt8(ascii: ":"))
                write(m.1, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    public static func writeNumber(_ d: Double, into out: inout [UInt8]) {
        guard d.isFinite else { out.append(contentsOf: [110, 117, 108, 108]); return }
        if d == d.rounded(), abs(d) <= 9_007_199_254_740_991 {  // every integer a JavaScript number holds exactly
            writeInteger(Int64(d), into: &out)
        } else {
            out.append(contentsOf: d.description.utf8)
        }
    }

    /// Writes `v` in decimal digits (no String in between).
    public static func writeInteger(_ v: Int64, into out: inout [UInt8]) {
        if v < 0 { out.append(UInt8(ascii: "-")) }
        var m = v.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var k = 20
            repeat {
                k -= 1
                digits[k] = UInt8(truncatingIfNeeded: 48 &+ m % 10)
                m /= 10
            } while m > 0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[k..<20]))
        }
    }

    public static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(0x22)
        var s = s
        s.withUTF8 { u in
            // Most strings (ids, names, polylines) need no escape: copy their bytes in one go.
            var clean = true
            for c in u where c < 0x20 || c == 0x22 || c == 0x5C {
                clean = false
                break
            }
            if clean {
                out.append(contentsOf: u)
                return
            }
            for c in u {
                switch c {
                case 0x22: out.append(0x5C); out.append(0x22)
                case 0x5C: out.append(0x5C); out.append(0x5C)
                case 0x0A: out.append(0x5C); out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(0x5C); out.append(UInt8(ascii: "r"))
                case 0x09: out.append(0x5C); out.append(UInt8(ascii: "t"))
                case 0..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 48, 48, hex[Int(c >> 4)], hex[Int(c & 15)]])
                default: out.append(c)
                }
            }
        }
        out.append(0x22)
    }
}

extension JSONValue: CustomStringConvertible {
    public var description: String { JSONWriter.string(self) }
}
