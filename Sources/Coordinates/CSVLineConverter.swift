import CSV

/// The converted form of a run of whole lines.
struct ConvertedPart {
    var output: [UInt8] = []
    var lineCount = 0
    var converted = 0
    /// (line number within the part, starting at 0, message), in line order.
    var errors: [(Int, String)] = []
}

/// Converts whole CSV lines: parse, transform as one batch, format. One instance serves many
/// threads at once (it holds no mutable state).
struct LineConverter: Sendable {
    let transformer: CoordinateTransformer
    /// Zero-based x and y columns of a CSV with a header; nil for plain `x,y` lines.
    let columns: (x: Int, y: Int)?
    let decimals: Int
    /// What separates fields (a comma, another byte, or whitespace).
    let separator: CSVLine.Separator
    /// Plain `x,y` runs may take `convertPlainFast` (false only to compare the two paths in tests).
    var allowsFastPath = true
    /// Recomputes with PROJ alone the points printed near a rounding boundary (see `RoundingTies`).
    let ties: RoundingTies
    /// Working buffers of the plain fast path, reused between parts.
    let scratchPool = PlainScratchPool()

    init(transformer: CoordinateTransformer, columns: (x: Int, y: Int)?, decimals: Int, separator: CSVLine.Separator = .comma) {
        self.transformer = transformer
        self.columns = columns
        self.decimals = decimals
        self.separator = separator
        ties = RoundingTies(transformer: transformer, decimals: decimals)
    }

    private enum LineState {
        case blank
        case bad(String)
        case point(Int)
    }

    func convert(_ bytes: UnsafeBufferPointer<UInt8>) -> ConvertedPart {
        if columns == nil, allowsFastPath, separator == .comma || separator == .whitespace, let fast = convertPlainFast(bytes) { return fast }
        var part = ConvertedPart()
        var states: [LineState] = []
        var bounds: [(start: Int, end: Int)] = []
        var fieldsOfLine: [(x: Range<Int>, y: Range<Int>)] = []  // absolute ranges in `bytes`, CSV mode only
        var xs: [Double] = [], ys: [Double] = []
        var ranges: [Range<Int>] = []
        let scratch = UnsafeMutablePointer<CChar>.allocate(capacity: 72)
        defer { scratch.deallocate() }

        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != 10 { end += 1 }
            var stop = end
            if stop > start, bytes[stop - 1] == 13 { stop -= 1 }
            let line = UnsafeBufferPointer(rebasing: bytes[start..<stop])
            bounds.append((start, stop))
            fieldsOfLine.append((0..<0, 0..<0))
            states.append(parse(line, offset: start, ranges: &ranges, scratch: scratch, xs: &xs, ys: &ys,
                                fields: &fieldsOfLine[fieldsOfLine.count - 1]))
            start = end + 1
        }
        part.lineCount = states.count

        // One batch for the part's points; issues name point indices, mapped back to lines.
        var pointIssues: [Int: String] = [:]
        do {
            let (inputX, inputY) = (xs, ys)
            let report = try transformer.transform(xs: &xs, ys: &ys)
            ties.settle(xs: &xs, ys: &ys, inputX: inputX, inputY: inputY)
            for issue in report.issues {
                switch issue.kind {
                case .invalidInput(let reason): pointIssues[issue.index] = reason
                case .transformFailed: pointIssues[issue.index] = "could not be transformed: outside the domain of \(transformer.source.name) → \(transformer.target.name)"
                }
            }
        } catch {
            for i in 0..<xs.count { pointIssues[i] = "PROJ failed: \(error)" }
        }

        part.output.reserveCapacity(bytes.count + bytes.count / 2 + 64)
        for (k, state) in states.enumerated() {
            var value: (Double, Double)? = nil
            switch state {
            case .blank:
                part.output.append(10)
                continue
            case .bad(let why):
                part.errors.append((k, why))
            case .point(let p):
                if let why = pointIssues[p] {
                    part.errors.append((k, why))
                } else {
                    value = (xs[p], ys[p])
                    part.converted += 1
                }
            }
            write(line: bounds[k], fields: fieldsOfLine[k], value: value, bytes: bytes, into: &part.output)
        }
        return part
    }

    /// Reads one line's point, appending it to `xs`/`ys`.
    private func parse(_ line: UnsafeBufferPointer<UInt8>, offset: Int, ranges: inout [Range<Int>],
                       scratch: UnsafeMutablePointer<CChar>, xs: inout [Double], ys: inout [Double],
                       fields: inout (x: Range<Int>, y: Range<Int>)) -> LineState
    {
        if line.allSatisfy({ $0 == 32 || $0 == 9 }) { return .blank }
        guard CSVLine.fieldRanges(line, separator: separator, into: &ranges) else { return .bad("a quoted field is not closed") }
        let xi: Int, yi: Int
        if let columns {
            xi = columns.x
            yi = columns.y
            guard ranges.count > max(xi, yi) else {
                return .bad("has \(ranges.count) fields; the \(xi > yi ? "x" : "y") column is field \(max(xi, yi) + 1)")
            }
        } else {
            guard ranges.count == 2 else {
                let shape = separator == .whitespace ? "x y" : "x\(Character(Unicode.Scalar(separator.outputByte)))y"
                return .bad("expected \(shape), got '\(Self.excerpt(line))'")
            }
            xi = 0
            yi = 1
        }
        let xr = CSVLine.unquoted(line, ranges[xi]), yr = CSVLine.unquoted(line, ranges[yi])
        fields = ((ranges[xi].lowerBound + offset)..<(ranges[xi].upperBound + offset),
                  (ranges[yi].lowerBound + offset)..<(ranges[yi].upperBound + offset))
        guard let x = CoordinateText.parseNumber(UnsafeBufferPointer(rebasing: line[xr]), scratch: scratch) else {
            return .bad("x '\(Self.excerpt(UnsafeBufferPointer(rebasing: line[xr])))' is not a finite number")
        }
        guard let y = CoordinateText.parseNumber(UnsafeBufferPointer(rebasing: line[yr]), scratch: scratch) else {
            return .bad("y '\(Self.excerpt(UnsafeBufferPointer(rebasing: line[yr])))' is not a finite number")
        }
        xs.append(x)
        ys.append(y)
        return .point(xs.count - 1)
    }

    /// Writes a line: plain `x,y`, or the CSV line with its x and y fields replaced; empty fields
    /// for a point that could not be converted.
    private func write(line: (start: Int, end: Int), fields: (x: Range<Int>, y: Range<Int>), value: (Double, Double)?,
                       bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8])
    {
        func number(_ v: Double?) {
            if let v { CoordinateText.appendFixed(v, decimals: decimals, into: &out) }
        }
        guard columns != nil, fields.x != fields.y else {
            if columns != nil {
                // A CSV line too short or unparseable: carried through as it was.
                out.append(contentsOf: bytes[line.start..<line.end])
            } else {
                number(value?.0)
                out.append(separator.outputByte)
                number(value?.1)
            }
            out.append(10)
            return
        }
        let xFirst = fields.x.lowerBound < fields.y.lowerBound
        let first = xFirst ? fields.x : fields.y, second = xFirst ? fields.y : fields.x
        out.append(contentsOf: bytes[line.start..<first.lowerBound])
        number(xFirst ? value?.0 : value?.1)
        out.append(contentsOf: bytes[first.upperBound..<second.lowerBound])
        number(xFirst ? value?.1 : value?.0)
        out.append(contentsOf: bytes[second.upperBound..<line.end])
        out.append(10)
    }

    private static func excerpt(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let text = String(decoding: bytes.prefix(40), as: UTF8.self)
        return bytes.count > 40 ? text + "…" : text
    }
}
