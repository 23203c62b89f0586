#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The text encoding of a CSV input. Output is always UTF-8.
///
/// Every command that reads CSV (batch, place import, party import, transform) takes
/// `--encoding auto|utf-8|cp949`; `auto` (the default) is `detect(in:)`.
public enum InputEncoding: String, Sendable, CaseIterable {
    /// UTF-8, with or without a byte-order mark.
    case utf8 = "utf-8"
    /// Code page 949 (Unified Hangul Code, a superset of EUC-KR): Korean Excel's CSV export.
    case cp949

    /// Parses an `--encoding` value or a `charset` name (`utf-8`, `utf8`, `cp949`, `uhc`,
    /// `euc-kr`, `windows-949`, `ks_c_5601-1987`; any case).
    public init?(name: String) {
        switch name.lowercased() {
        case "utf-8", "utf8": self = .utf8
        case "cp949", "uhc", "ms949", "euc-kr", "euckr", "windows-949", "x-windows-949", "ks_c_5601-1987": self = .cp949
        default: return nil
        }
    }

    /// Wraps `source` so that it yields UTF-8.
    public func decoding(_ source: ByteSource) throws -> ByteSource {
        switch self {
        case .utf8: return source
        case .cp949: return try IconvSource(wrapping: source, from: "CP949")
        }
    }

    /// Parses an `--encoding` value, `auto` included (nil then): throws naming the option.
    public static func option(_ name: String?) throws(EncodingOptionError) -> InputEncoding? {
        guard let name, name.lowercased() != "auto" else { return nil }
        guard let e = InputEncoding(name: name) else { throw EncodingOptionError(value: name) }
        return e
    }

    /// Bytes looked at to tell the encoding.
    public static let detectionBytes = 1 << 16

    /// Tells UTF-8 from CP949 by the first bytes of `source` and returns a source that yields the
    /// whole input as UTF-8 (the bytes looked at included) with the encoding it chose.
    ///
    /// A UTF-8 byte-order mark, or bytes that are all valid UTF-8, mean UTF-8. Bytes that are not
    /// UTF-8 stay UTF-8 when valid three- and four-byte characters outnumber them eight to one
    /// (Hangul takes three bytes in UTF-8: Korean UTF-8 text with a damaged byte keeps many valid
    /// characters, and its damaged rows then fail alone, `bad_encoding`), and mean CP949 when they
    /// convert cleanly from CP949 (two bytes per Hangul, which only now and then happen to form a
    /// valid UTF-8 character). Anything else is a doubt: `CSVError.undetectableEncoding` naming the line
    /// and column of the first byte that is not UTF-8, and `--encoding`.
    public static func detect(in source: ByteSource) throws -> (source: ByteSource, encoding: InputEncoding) {
        var head: [UInt8] = []
        var chunks: [[UInt8]] = []
        var ended = false
        // A pipe (no known size) is decided on its first whole line, so that rows arriving one by
        // one are not held back; a file on its first 64 KiB.
        while head.count < detectionBytes, source.totalBytes != nil || !head.contains(0x0A) {
            guard let chunk = try source.nextChunk() else { ended = true; break }
            head += chunk
            chunks.append(chunk)
        }
        let replay = ReplaySource(chunks: chunks, then: source)
        if head.starts(with: [0xEF, 0xBB, 0xBF]) {
            // A mark says UTF-8; text that is not (beyond a damaged byte or two) is refused here,
            // naming where, rather than read as a header of replacement characters.
            let scan = UTF8Scan(Array(head.dropFirst(3)), truncated: !ended)
            guard let bad = scan.firstInvalid, scan.multiByteCharacters < 8 * scan.invalidBytes else { return (replay, .utf8) }
            let (line, column) = Self.position(of: bad + 3, in: head)
            throw CSVError.notUTF8AfterByteOrderMark(line: line, column: column)
        }
        let scan = UTF8Scan(head, truncated: !ended)
        guard let bad = scan.firstInvalid else { return (replay, .utf8) }
        if scan.multiByteCharacters >= 8 * scan.invalidBytes { return (replay, .utf8) }
        if (try? IconvSource.convertsCleanly(head, from: "CP949", truncated: !ended)) == true {
            return (try IconvSource(wrapping: replay, from: "CP949"), .cp949)
        }
        if let mixed = Self.lineBreakingCP949(head, truncated: !ended) { throw mixed }
        let (line, column) = Self.position(of: bad, in: head)
        throw CSVError.undetectableEncoding(line: line, column: column)
    }

    /// For bytes that are neither UTF-8 nor CP949 throughout: when more lines read as CP949 only
    /// than as UTF-8 only, the file is CP949 and the first line that is not is the one to name
    /// (`mixedEncoding`, with the column of its first byte iconv refuses); else nil.
    static func lineBreakingCP949(_ head: [UInt8], truncated: Bool) -> CSVError? {
        var cp949Only = 0, utf8Only = 0
        var firstCP949: Int?, breaking: (start: Int, bytes: ArraySlice<UInt8>)?
        var start = 0
        while start < head.count {
            let end = head[start...].firstIndex(of: 0x0A) ?? head.count
            let line = head[start..<end]
            let open = truncated && end == head.count  // the last line may be cut mid-character
            let utf8 = UTF8Scan(Array(line), truncated: open).firstInvalid == nil
            let cp949 = (try? IconvSource.convertsCleanly(Array(line), from: "CP949", truncated: open)) == true
            if cp949 && !utf8 { cp949Only += 1; firstCP949 = firstCP949 ?? start }
            if utf8 && !cp949 { utf8Only += 1 }
            if !cp949, breaking == nil { breaking = (start, line) }
            start = end + 1
        }
        guard cp949Only > utf8Only, let breaking, let firstCP949 else { return nil }
        // The longest prefix of the line that converts (an incomplete last character allowed).
        var good = 0, bad = breaking.bytes.count
        while bad - good > 1 {
            let mid = (good + bad) / 2
            if (try? IconvSource.convertsCleanly(Array(breaking.bytes.prefix(mid)), from: "CP949", truncated: true)) == true { good = mid } else { bad = mid }
        }
        let at = Self.position(of: breaking.start + good, in: head)
        return .mixedEncoding(line: at.line, column: at.column, cp949Line: Self.position(of: firstCP949, in: head).line)
    }

    /// The 1-based physical line and field (comma-separated, quotes respected) of byte `offset`.
    static func position(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1, column = 1, quoted = false
        for b in bytes[..<min(offset, bytes.count)] {
            if b == 0x22 { quoted.toggle() }
            else if b == 0x0A { line += 1; if !quoted { column = 1 } }
            else if !quoted && b == 0x2C { column += 1 }
        }
        return (line, column)
    }
}

/// An `--encoding` value that is not one the tools know.
public struct EncodingOptionError: Error, Sendable, CustomStringConvertible {
    public let value: String
    public var description: String { "option --encoding must be auto, utf-8 or cp949 (also euc-kr), got '\(value)'" }
}

/// What a scan of bytes as UTF-8 found.
struct UTF8Scan {
    /// The offset of the first byte that is not part of valid UTF-8, or nil.
    var firstInvalid: Int?
    /// Valid three- and four-byte characters seen.
    var multiByteCharacters = 0
    /// Bytes that start no valid character.
    var invalidBytes = 0

    /// Scans `bytes`; with `truncated`, an incomplete character at the very end is not an error.
    init(_ bytes: [UInt8], truncated: Bool) {
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b < 0x80 { i += 1; continue }
            let length: Int
            switch b {
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default:
                firstInvalid = firstInvalid ?? i
                invalidBytes += 1
                i += 1
                continue
            }
            if i + length > n {
                if truncated { break }
                firstInvalid = firstInvalid ?? i
                invalidBytes += 1
                break
            }
            var ok = true
            for k in 1..<length where bytes[i + k] & 0xC0 != 0x80 { ok = false; break }
            if ok, length == 3 {
                // No overlong forms or surrogates.
                if b == 0xE0 && bytes[i + 1] < 0xA0 { ok = false }
                if b == 0xED && bytes[i + 1] >= 0xA0 { ok = false }
            }
            if ok, length == 4 {
                if b == 0xF0 && bytes[i + 1] < 0x90 { ok = false }
                if b == 0xF4 && bytes[i + 1] >= 0x90 { ok = false }
            }
            if ok {
                if length >= 3 { multiByteCharacters += 1 }
                i += length
            } else {
                firstInvalid = firstInvalid ?? i
                invalidBytes += 1
                i += 1
            }
        }
    }
}

/// Serves chunks already read, then the rest of another source.
final class ReplaySource: ByteSource {
    private var chunks: [[UInt8]]
    private let rest: ByteSource
    var bytesConsumed: Int64 { rest.bytesConsumed }
    var totalBytes: Int64? { rest.totalBytes }

    init(chunks: [[UInt8]], then rest: ByteSource) {
        self.chunks = chunks.reversed()
        self.rest = rest
    }

    func nextChunk() throws -> [UInt8]? {
        if let c = chunks.popLast() { return c }
        return try rest.nextChunk()
    }
}

/// Converts a byte stream from another encoding to UTF-8 with iconv, chunk by chunk.
///
/// A multi-byte character split across two chunks is carried over to the next one. Bytes
/// that are not valid in the source encoding become U+FFFD (the replacement character),
/// which cannot come out of a valid CP949 text, so the CSV reader flags that row
/// (`bad_encoding`) instead of stopping the run.
public final class IconvSource: ByteSource {
    private let source: ByteSource
    private let encoding: String
    private let descriptor: iconv_t
    private(set) var carried: [UInt8] = []
    private var finished = false
    /// How many invalid bytes were replaced so far.
    public private(set) var invalidSequences = 0

    public var bytesConsumed: Int64 { source.bytesConsumed }
    public var totalBytes: Int64? { source.totalBytes }

    /// The UTF-8 encoding of U+FFFD.
    static let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]

    /// Opens a converter from `encoding` (an iconv name such as "CP949") to UTF-8.
    public init(wrapping source: ByteSource, from encoding: String) throws {
        guard let cd = iconv_open("UTF-8", encoding), cd != iconv_t(bitPattern: -1) else {
            throw ByteStreamError("this system's iconv cannot convert from \(encoding) to UTF-8")
        }
        self.source = source
        self.encoding = encoding
        self.descriptor = cd
    }

    deinit { iconv_close(descriptor) }

    /// True when every byte of `bytes` converts from `encoding` (an incomplete character at the
    /// end is allowed when `truncated`).
    static func convertsCleanly(_ bytes: [UInt8], from encoding: String, truncated: Bool) throws -> Bool {
        let converter = try IconvSource(wrapping: ReplaySource(chunks: [], then: EmptySource()), from: encoding)
        _ = try converter.convert(bytes)
        return converter.invalidSequences == 0 && (truncated || converter.carried.isEmpty)
    }

    public func nextChunk() throws -> [UInt8]? {
        while !finished {
            guard let chunk = try source.nextChunk() else {
                finished = true
                var out: [UInt8] = []
                if !carried.isEmpty {
                    // A truncated multi-byte character at the very end of the input.
                    invalidSequences += 1
                    out = Self.replacement
                    carried = []
                }
                return out.isEmpty ? nil : out
            }
            let input = carried.isEmpty ? chunk : carried + chunk
            carried = []
            let out = try convert(input)
            if !out.isEmpty { return out }
        }
        return nil
    }

    /// Converts as much of `input` as forms whole characters; keeps an incomplete tail in `carried`.
    func convert(_ input: [UInt8]) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: input.count * 2 + 16)
        var produced = 0
        var consumed = 0
        var input = input
        try input.withUnsafeMutableBytes { inRaw in
            let inBase = inRaw.baseAddress!.assumingMemoryBound(to: CChar.self)
            while consumed < inRaw.count {
                if output.count - produced < 16 { output.append(contentsOf: repeatElement(0, count: output.count)) }
                var inPtr: UnsafeMutablePointer<CChar>? = inBase + consumed
                var inLeft = inRaw.count - consumed
                let (result, code, outUsed): (Int, Int32, Int) = output.withUnsafeMutableBytes { outRaw in
                    let outStart = outRaw.baseAddress!.assumingMemoryBound(to: CChar.self) + produced
                    var outPtr: UnsafeMutablePointer<CChar>? = outStart
                    var outLeft = outRaw.count - produced
                    let r = iconv(descriptor, &inPtr, &inLeft, &outPtr, &outLeft)
                    let err = r == -1 ? errno : 0
                    return (r, err, outStart.distance(to: outPtr!))
                }
                produced += outUsed
                consumed = inRaw.count - inLeft
                if result != -1 { break }
                switch code {
                case E2BIG:
                    continue  // grow the output at the top of the loop
                case EINVAL:
                    // An incomplete character at the end of this chunk: finish it with the next.
                    carried = Array(UnsafeRawBufferPointer(rebasing: inRaw[consumed...]))
                    consumed = inRaw.count
                case EILSEQ:
                    invalidSequences += 1
                    if output.count - produced < 3 { output.append(contentsOf: repeatElement(0, count: 16)) }
                    output.replaceSubrange(produced..<produced + 3, with: Self.replacement)
                    produced += 3
                    consumed += 1
                default:
                    throw CSVError.conversionFailed("converting from \(encoding) failed: \(String(cString: strerror(code)))")
                }
            }
        }
        output.removeSubrange(produced...)
        return output
    }
}

/// A source with no bytes.
final class EmptySource: ByteSource {
    var bytesConsumed: Int64 { 0 }
    var totalBytes: Int64? { 0 }
    func nextChunk() throws -> [UInt8]? { nil }
}
