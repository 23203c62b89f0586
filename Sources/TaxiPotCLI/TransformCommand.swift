import Foundation
import TaxiPot

/// `taxipot transform --from A --to B [FILE]`: coordinates in CSV text from one CRS to another.
struct TransformCommand: Command {
    let name = "transform"
    let summary = "convert x,y coordinates (CSV) between coordinate systems (WGS84, UTMK, KATEC, …)"
    var help: String {
        """
        Usage: taxipot transform --from CRS --to CRS [--x-col NAME --y-col NAME] [--delimiter D]
                                 [--precision N] [--encoding auto|utf-8|cp949] [FILE]

        Reads points from FILE (or standard input when FILE is absent or '-') and writes them,
        converted through PROJ, as CSV to standard output. Streams in blocks with bounded memory and
        converts each block on all cores; output keeps the input's line order.

        Input:
          without --x-col/--y-col: one 'x,y' per line, no header ('x y' with --delimiter space)
          with --x-col/--y-col:    CSV with a header line; the named columns are converted in place,
                                   every other column is carried through unchanged
          x is longitude or easting, y is latitude or northing, whatever the CRS's own axis order.

        Output numbers: 8 decimals for degrees, 3 for metres (and WCONGNAMUL units), or --precision.

        CRS: EPSG:<code> (any code PROJ knows) or, in any case,
          \(CRSCatalog.aliasNames.joined(separator: ", "))
          (WCONGNAMUL = EPSG:5181 metres x 2.5; KATEC/TM128 = Bessel TM128 with the 7-parameter datum shift)

        Bad lines (not a number, NaN, latitude beyond ±90 / longitude beyond ±180 for degrees, or
        outside the projection's domain) are reported on standard error as 'line N: why' and written
        with empty x and y, so output line N is input line N; the other lines are still converted.

        Options:
          --from CRS      source coordinate system (required)
          --to CRS        target coordinate system (required)
          --x-col NAME    header name of the x column (with --y-col)
          --y-col NAME    header name of the y column (with --x-col)
          --delimiter D   field separator: ',' (default), ';', '|', tab, or space (runs of spaces
                          and tabs, as cs2cs reads; plain output is then 'x y')
          --precision N   decimals of the output numbers, 0-12
          --encoding E    auto (default: UTF-8 with or without BOM, or CP949 told from the bytes),
                          utf-8 or cp949; output is UTF-8

        Points inside the area of use of the common Korean grids (UTM-K, the 2010 belts, WTM,
        WCONGNAMUL, KATEC/TM128) go through closed-form kernels checked against PROJ when the
        command starts (nanometres apart); set TAXIPOT_COORDINATES_PROJ_ONLY=1 to use PROJ for all.

        Exit status: 0 all converted, 1 usage or fatal error, 2 finished with bad lines.
        """
    }

    func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, valued: ["from", "to", "x-col", "y-col", "delimiter", "precision", "encoding"])
        var options = CSVTransformOptions(xColumn: a.value("x-col"), yColumn: a.value("y-col"))
        if let d = a.value("delimiter") {
            guard let separator = CSVLine.Separator(option: d, allowWhitespace: true) else {
                throw UsageError("option --delimiter must be ',', ';', '|', tab or space, got '\(d)'")
            }
            options.separator = separator
        }
        if a.value("precision") != nil { options.decimals = try a.int("precision", default: 8, range: 0...12) }
        let encoding = try CSVOptions.encoding(a)
        let from = try a.required("from")
        let to = try a.required("to")
        guard a.positionals.count <= 1 else {
            throw UsageError("expected at most one input FILE, got \(a.positionals.count): \(a.positionals.joined(separator: " "))")
        }
        let transformer: CoordinateTransformer
        do {
            transformer = try CoordinateTransformer(from: from, to: to)
        } catch {
            switch error {
            case .unknownCRS(let crs), .unsupportedCRS(let crs, _):
                let option = (try? CRSCatalog.resolve(from).name) == crs || (try? CRSCatalog.resolve(from)) == nil ? "--from" : "--to"
                throw UsageError("\(option): \(error)")
            default:
                throw UsageError("\(error)")
            }
        }

        // Blocks, parsed numbers and output of a few MiB are allocated and freed all along: keep
        // freed memory for reuse instead of returning it to the kernel and faulting it in again.
        keepFreedMemory()

        let fd: Int32
        let path = a.positionals.first ?? "-"
        if path == "-" {
            fd = 0
        } else {
            fd = open(path, O_RDONLY)
            guard fd >= 0 else { throw TransformFailure(message: "cannot open \(path): \(String(cString: strerror(errno)))") }
        }
        defer { if fd != 0 { close(fd) } }

        let stream = CSVCoordinateTransform(transformer: transformer, options: options)
        let input: TransformInput
        do {
            input = try TransformInput(fd: fd, name: path == "-" ? "stdin" : path, encoding: encoding)
        } catch {
            throw TransformFailure(message: "\(path == "-" ? "stdin" : path): \(error)")
        }
        let summary: CSVTransformSummary
        do {
            summary = try stream.run(
                read: { buffer in input.read(into: buffer) },
                write: { bytes in writeAll(1, bytes) },
                report: { printError("\(path == "-" ? "stdin" : path): \($0)") })
        } catch {
            switch error {
            case .columnNotFound, .sameColumn, .missingColumnOption: throw UsageError(error.description)
            default: throw TransformFailure(message: "\(path == "-" ? "stdin" : path): \(error)")
            }
        }
        if summary.badLines > 0 {
            printError("taxipot transform: \(summary.converted) points converted, \(summary.badLines) bad lines")
            return 2
        }
        return 0
    }
}

/// The input as UTF-8: read straight from the descriptor (after the bytes looked at to tell the
/// encoding), or through the CP949 converter.
private final class TransformInput {
    private let fd: Int32
    private var pending: [UInt8] = []
    private var offset = 0
    /// The converting source when the input is not UTF-8; nil reads the descriptor directly.
    private let converted: ByteSource?
    private var replay: ByteSource?

    init(fd: Int32, name: String, encoding: InputEncoding?) throws {
        self.fd = fd
        let raw = FileDescriptorSource(fileDescriptor: fd, name: name)
        if let encoding {
            converted = encoding == .utf8 ? nil : try encoding.decoding(raw)
            replay = nil
        } else {
            // Reads up to 64 KiB to tell the encoding; those bytes are served first.
            let peek = PeekSource(raw)
            let (source, detected) = try InputEncoding.detect(in: peek)
            peek.limited = detected == .utf8
            converted = detected == .utf8 ? nil : source
            replay = detected == .utf8 ? source : nil
        }
    }

    /// Fills `buffer`: the bytes read, 0 at the end, -1 on error (errno set).
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while offset >= pending.count {
            if let source = converted ?? replay {
                do {
                    if let chunk = try source.nextChunk() {
                        pending = chunk
                        offset = 0
                        continue
                    }
                } catch {
                    errno = EILSEQ
                    return -1
                }
                if converted != nil { return 0 }
                replay = nil
            }
            while true {
                let n = Foundation.read(fd, buffer.baseAddress, buffer.count)
                if n < 0, errno == EINTR { continue }
                return n
            }
        }
        let n = min(buffer.count, pending.count - offset)
        pending.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: n) }
        offset += n
        return n
    }
}

/// The first chunks of a descriptor (for telling the encoding); ends where the look stopped, the
/// rest is read directly.
private final class PeekSource: ByteSource {
    private let raw: FileDescriptorSource
    private var given = 0
    /// Stop after `InputEncoding.detectionBytes` (false: serve the whole input, for a converter).
    var limited = true
    init(_ raw: FileDescriptorSource) { self.raw = raw }
    var bytesConsumed: Int64 { raw.bytesConsumed }
    var totalBytes: Int64? { raw.totalBytes }
    func nextChunk() throws -> [UInt8]? {
        guard !limited || given < InputEncoding.detectionBytes else { return nil }
        let chunk = try raw.nextChunk()
        given += chunk?.count ?? 0
        return chunk
    }
}

/// A fatal error while streaming (exit 1).
private struct TransformFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Writes all bytes to a file descriptor, retrying short writes.
private func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
    bytes.withUnsafeBytes { raw in
        guard let base = raw.baseAddress else { return }
        var offset = 0
        while offset < raw.count {
            let n = write(fd, base + offset, raw.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += n
        }
    }
}

/// Tells glibc's malloc to serve blocks up to 32 MiB from its heap (not fresh `mmap`s) and to keep
/// up to 256 MiB freed: the streaming blocks then reuse memory already faulted in. (`mallopt` is
/// not in Swift's Glibc module, hence the look-up; `M_TRIM_THRESHOLD` = -1, `M_MMAP_THRESHOLD` = -3.)
private func keepFreedMemory() {
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    guard let symbol = dlsym(nil, "mallopt") else { return }
    let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
    _ = mallopt(-3, 32 << 20)
    _ = mallopt(-1, 256 << 20)
}
