import CSV
import Dispatch
import Foundation

/// How `CSVCoordinateTransform` reads its input.
public struct CSVTransformOptions: Sendable {
    /// Header names of the x and y columns; both nil means plain `x,y` lines with no header.
    public var xColumn: String?
    public var yColumn: String?
    /// What separates fields: a comma (default), another byte, or whitespace (`x y`, the cs2cs habit).
    public var separator: CSVLine.Separator = .comma
    /// Decimals of the output numbers; nil: 8 for degrees, 3 for metres.
    public var decimals: Int?
    /// Bytes read per block; each block's lines are split across cores. Memory stays within a few blocks.
    public var blockBytes = 512 << 10
    /// The longest line accepted.
    public var maxLineBytes = 1 << 20
    /// Bad lines reported one by one; later ones are only counted.
    public var maxReportedErrors = 100
    /// Plain `x,y` input is read and written by a dedicated fast parser and formatter that give the
    /// same bytes; false forces the general CSV path everywhere (to compare the two).
    var plainFastPath = true

    public init(xColumn: String? = nil, yColumn: String? = nil) {
        self.xColumn = xColumn
        self.yColumn = yColumn
    }
}

/// What a CSV transformation did.
public struct CSVTransformSummary: Sendable, Equatable {
    /// Lines read (header and blank lines included).
    public var lines = 0
    /// Lines whose point was converted.
    public var converted = 0
    /// Lines that could not be converted (reported, written with empty x and y).
    public var badLines = 0

    public init(lines: Int = 0, converted: Int = 0, badLines: Int = 0) {
        self.lines = lines
        self.converted = converted
        self.badLines = badLines
    }
}

/// A CSV transformation that cannot go on; the message names the column or line.
public enum CSVTransformError: Error, Sendable, Equatable, CustomStringConvertible {
    case columnNotFound(option: String, column: String, header: [String])
    case sameColumn(String)
    case missingColumnOption(String)
    case missingHeader
    case lineTooLong(line: Int, limit: Int)
    case readFailed(String)

    public var description: String {
        switch self {
        case .columnNotFound(let option, let column, let header):
            return "--\(option): no column '\(column)' in the header (\(header.joined(separator: ", ")))"
        case .sameColumn(let c): return "--x-col and --y-col both name column '\(c)'"
        case .missingColumnOption(let o): return "--\(o) is needed too: give both --x-col and --y-col, or neither for plain x,y lines"
        case .missingHeader: return "the input is empty: --x-col/--y-col need a header line"
        case .lineTooLong(let line, let limit): return "line \(line) is longer than \(limit) bytes"
        case .readFailed(let why): return "reading the input failed: \(why)"
        }
    }
}

/// Streams CSV text through a `CoordinateTransformer`: plain `x,y` lines, or CSV with a header
/// whose x and y columns are replaced while every other column is carried through verbatim.
///
/// Reads blocks of lines, converts each block's lines in parallel parts (one per core and more)
/// and writes them in input order, so memory stays bounded whatever the input size. Output numbers
/// have 8 decimals for degrees and 3 for metres (or other linear units). A bad line (not a number,
/// NaN, out of range, not transformable) is reported as `line N: why` and written with empty x and
/// y, so output line N is input line N.
public final class CSVCoordinateTransform: Sendable {
    public let transformer: CoordinateTransformer
    public let options: CSVTransformOptions
    /// Decimals of the output numbers.
    public let decimals: Int

    public init(transformer: CoordinateTransformer, options: CSVTransformOptions) {
        self.transformer = transformer
        self.options = options
        decimals = options.decimals ?? (transformer.targetIsGeographic ? 8 : 3)
    }

    /// Runs to the end of the input.
    ///
    /// - Parameters:
    ///   - read: fills the buffer, returning the bytes read, 0 at the end, or -1 on error.
    ///   - write: takes output bytes in order.
    ///   - report: takes one message per bad line (`line N: why`), up to `maxReportedErrors`.
    public func run(read: (UnsafeMutableRawBufferPointer) -> Int, write: ([UInt8]) -> Void,
                    report: (String) -> Void) throws(CSVTransformError) -> CSVTransformSummary
    {
        var columns: (x: Int, y: Int)? = nil
        switch (options.xColumn, options.yColumn) {
        case (nil, nil): break
        case (nil, _): throw .missingColumnOption("x-col")
        case (_, nil): throw .missingColumnOption("y-col")
        case (let x?, let y?): if x == y { throw .sameColumn(x) }
        }
        var input = BlockReader(capacity: max(options.blockBytes, 4096), maxLine: options.maxLineBytes)
        var summary = CSVTransformSummary()
        var reported = 0

        if let xName = options.xColumn, let yName = options.yColumn {
            guard var header = try input.firstLine(read) else { throw .missingHeader }
            if header.last == 13 { header.removeLast() }  // a CRLF line end (else the last name would end in CR)
            let names = CSVLine.headerNames(header, separator: options.separator) ?? []
            func find(_ name: String, _ option: String) throws(CSVTransformError) -> Int {
                if let i = names.firstIndex(of: name) { return i }
                if let i = names.firstIndex(where: { $0.lowercased() == name.lowercased() }) { return i }
                throw .columnNotFound(option: option, column: name, header: names)
            }
            columns = (try find(xName, "x-col"), try find(yName, "y-col"))
            var out = header
            if out.starts(with: [0xEF, 0xBB, 0xBF]) { out.removeFirst(3) }
            out.append(10)
            write(out)
            summary.lines = 1
        }

        var parser = LineConverter(transformer: transformer, columns: columns, decimals: decimals, separator: options.separator)
        parser.allowsFastPath = options.plainFastPath
        // Blocks in flight: reading the next and writing the previous overlap the conversion.
        var inFlight: [BlockJob] = []
        func finishOldest() {
            let job = inFlight.removeFirst()
            job.group.wait()
            for part in job.results {
                write(part.output)
                for (localLine, message) in part.errors {
                    if reported < options.maxReportedErrors { report("line \(summary.lines + localLine + 1): \(message)") }
                    reported += 1
                }
                summary.lines += part.lineCount
                summary.converted += part.converted
                summary.badLines += part.errors.count
            }
        }
        do {
            while let block = try input.nextBlock(read) {
                inFlight.append(BlockJob(block, parser: parser))
                if inFlight.count >= Self.blocksInFlight { finishOldest() }
            }
        } catch {
            while !inFlight.isEmpty { finishOldest() }
            if case .lineTooLong(_, let limit) = error { throw .lineTooLong(line: summary.lines + 1, limit: limit) }
            throw error
        }
        while !inFlight.isEmpty { finishOldest() }
        if reported > options.maxReportedErrors {
            report("… and \(reported - options.maxReportedErrors) more bad lines")
        }
        return summary
    }

    /// Blocks read ahead of the one being written (bounds memory to about this many blocks, twice over).
    static let blocksInFlight = 3
}

/// One block of whole lines, split at line ends into parts converted concurrently on the global queue.
private final class BlockJob: @unchecked Sendable {
    /// The block itself (read concurrently by the parts, never written).
    let bytes: [UInt8]
    let cuts: [Int]
    private let slots: UnsafeMutableBufferPointer<ConvertedPart>
    let group = DispatchGroup()

    init(_ block: [UInt8], parser: LineConverter) {
        bytes = block
        let minPart = 64 << 10
        let wanted = min(CoordinateTransformer.coreCount * 2, max(1, block.count / minPart))
        var cuts = [0]
        for k in 1..<max(wanted, 1) {
            var at = max(block.count * k / wanted, cuts[cuts.count - 1] + 1)
            while at < block.count, block[at - 1] != 10 { at += 1 }
            if at < block.count { cuts.append(at) }
        }
        cuts.append(block.count)
        self.cuts = cuts
        slots = UnsafeMutableBufferPointer<ConvertedPart>.allocate(capacity: cuts.count - 1)
        slots.initialize(repeating: ConvertedPart())
        for k in 0..<(cuts.count - 1) {
            DispatchQueue.global().async(group: group) {
                self.slots[k] = self.bytes.withUnsafeBufferPointer { all in
                    parser.convert(UnsafeBufferPointer(rebasing: all[self.cuts[k]..<self.cuts[k + 1]]))
                }
            }
        }
    }

    /// The parts' results in order; call after `group.wait()`.
    var results: UnsafeMutableBufferPointer<ConvertedPart> { slots }

    deinit {
        group.wait()
        slots.deinitialize().deallocate()
    }
}

/// Reads the input in blocks that end at a line end (the last block may not).
///
/// Each block is a new array that the input is read straight into, after the unfinished line the
/// previous block left over: no byte is copied twice, and blocks can be handed to other threads.
struct BlockReader {
    /// The start of a line that the previous read did not finish.
    private var carry: [UInt8] = []
    private var atEnd = false
    /// Bytes per block now: `capacity`, grown (doubling, up to `maxLine`) while one line fills a block.
    private var size: Int
    private let capacity: Int
    private let maxLine: Int

    init(capacity: Int, maxLine: Int) {
        self.capacity = capacity
        self.maxLine = maxLine
        size = capacity
    }

    /// The carried bytes and then fresh input, up to `size` bytes (fewer only at the end of the input).
    private mutating func fill(_ read: (UnsafeMutableRawBufferPointer) -> Int) throws(CSVTransformError) -> [UInt8] {
        let carried = carry
        carry = []
        let size = max(self.size, carried.count)
        var ended = atEnd
        var failure: Int32? = nil
        let block = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            guard let base = buffer.baseAddress else { count = 0; return }
            var filled = carried.count
            carried.withUnsafeBytes { c in
                if let from = c.baseAddress { UnsafeMutableRawPointer(base).copyMemory(from: from, byteCount: c.count) }
            }
            while !ended, filled < size {
                let n = read(UnsafeMutableRawBufferPointer(start: base + filled, count: size - filled))
                if n < 0 {
                    failure = errno
                    break
                }
                if n == 0 { ended = true }
                filled += n
            }
            count = filled
        }
        atEnd = ended
        if let failure { throw .readFailed(String(cString: strerror(failure))) }
        return block
    }

    /// The first line (without its line end), or nil for empty input.
    mutating func firstLine(_ read: (UnsafeMutableRawBufferPointer) -> Int) throws(CSVTransformError) -> [UInt8]? {
        let block = try fill(read)
        guard !block.isEmpty else { return nil }
        guard let nl = block.firstIndex(of: 10) else {
            if !atEnd { throw .lineTooLong(line: 1, limit: block.count) }
            return block
        }
        carry = Array(block[(nl + 1)...])
        return Array(block[..<nl])
    }

    /// The next block of whole lines, or nil at the end. An overlong line throws `lineTooLong` with
    /// line 0: the reader does not count lines, its caller knows how many went before.
    mutating func nextBlock(_ read: (UnsafeMutableRawBufferPointer) -> Int) throws(CSVTransformError) -> [UInt8]? {
        while true {
            var block = try fill(read)
            guard !block.isEmpty else { return nil }
            if atEnd { return block }
            // The last line end (lines are short: a few bytes back).
            var cut = block.count
            while cut > 0, block[cut - 1] != 10 { cut -= 1 }
            if cut > 0 {
                carry = Array(block[cut...])
                block.removeLast(block.count - cut)
                size = capacity
                return block
            }
            // One line fills the block: grow it up to the line limit.
            guard size < maxLine else { throw .lineTooLong(line: 0, limit: maxLine) }
            carry = block
            size = min(size * 2, maxLine)
        }
    }
}
