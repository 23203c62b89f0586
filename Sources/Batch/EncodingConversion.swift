#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The text encoding of a batch input file. Output is always UTF-8.
public enum InputEncoding: String, Sendable, CaseIterable {
    /// UTF-8, with or without a byte-order mark.
    case utf8 = "utf-8"
    /// Code page 949 (Unified Hangul Code, a superset of EUC-KR): Korean Excel's CSV export.
    case cp949

    /// Parses an `--encoding` value (`utf-8`, `utf8`, `cp949`, `uhc`, `euc-kr`; any case).
    public init?(name: String) {
        switch name.lowercased() {
        case "utf-8", "utf8": self = .utf8
        case "cp949", "uhc", "ms949", "euc-kr", "euckr": self = .cp949
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
    private var carried: [UInt8] = []
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
    private func convert(_ input: [UInt8]) throws -> [UInt8] {
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
                    throw ByteStreamError("converting from \(encoding) failed: \(String(cString: strerror(code)))")
                }
            }
        }
        output.removeSubrange(produced...)
        return output
    }
}
