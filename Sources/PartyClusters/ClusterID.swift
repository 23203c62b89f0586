/// The identity of a cluster: its zoom and the grid cells whose parties it gathers.
///
/// Most clusters are one cell; a cluster merged with neighbouring cells (so that no two
/// features are closer than the radius) names all of them. The id depends only on the zoom
/// and the cells, so it stays the same while those cells stay occupied, whatever happens
/// elsewhere.
///
/// Text form: `"<zoom>.<x>.<y>"` for the first cell (the lowest `y`, then `x`), then
/// `".<dx>.<dy>"` for each further cell as an offset from the first, e.g. `"14.13954.6345"`
/// or `"12.3491.1586.1.0.0.1"`. Only digits, `.` and `-`, so it travels in a URL path as is.
public struct ClusterID: Sendable, Hashable, CustomStringConvertible {
    /// The zoom the cells belong to, 0–20.
    public let zoom: Int
    /// The least cell (by `y`, then `x`).
    public let first: Cell
    /// The other cells, sorted by `y` then `x`, no repeats (usually none).
    public var others: [Cell] {
        guard packed.count > 0 else { return spilled }
        return (0..<packed.count).map { packed.cell($0, after: first) }
    }

    /// The other cells when there are at most `Packed.capacity` of them, each within
    /// `maxOffset` of `first` (the usual case: no allocation per id); otherwise empty and
    /// the cells are in `spilled`. The form is canonical, so ids compare by their fields.
    private let packed: Packed
    private let spilled: [Cell]

    /// All the cells, sorted by `y` then `x`.
    public var cells: [Cell] { [first] + others }
    /// Number of cells.
    public var cellCount: Int { 1 + (packed.count > 0 ? packed.count : spilled.count) }

    /// Up to `capacity` cell offsets from the first cell, 17 bits each (dx + 255: 9 bits,
    /// dy: 8 bits; the first cell is the least, so dy ≥ 0), three to a word, and their count.
    struct Packed: Hashable, Sendable {
        var low: UInt64 = 0
        var high: UInt64 = 0
        /// Number of offsets held (0: none, or the cells are spilled).
        var count: Int { Int(high >> 56) }
        static let capacity = 6

        /// The offsets of `cells` (sorted, after `first`) when they fit; nil when not.
        init?(_ cells: UnsafeBufferPointer<Cell>, after first: Cell) {
            guard cells.count <= Packed.capacity else { return nil }
            for (i, c) in cells.enumerated() {
                let dx = c.x - first.x, dy = c.y - first.y
                guard abs(dx) <= ClusterID.maxOffset, (0...ClusterID.maxOffset).contains(dy) else { return nil }
                let v = UInt64(dx + ClusterID.maxOffset) | UInt64(dy) << 9
                if i < 3 { low |= v << UInt64(17 * i) } else { high |= v << UInt64(17 * (i - 3)) }
            }
            high |= UInt64(cells.count) << 56
        }

        init() {}

        /// The `i`th further cell.
        func cell(_ i: Int, after first: Cell) -> Cell {
            let v = (i < 3 ? low >> UInt64(17 * i) : high >> UInt64(17 * (i - 3))) & 0x1FFFF
            return Cell(x: first.x + Int(v & 0x1FF) - ClusterID.maxOffset, y: first.y + Int(v >> 9))
        }
    }

    /// An id of `first` and `others` (sorted, no repeats, all after `first`).
    private init(zoom: Int, first: Cell, others: UnsafeBufferPointer<Cell>) {
        self.zoom = zoom
        self.first = first
        if let p = Packed(others, after: first) {
            packed = p
            spilled = []
        } else {
            packed = Packed()
            spilled = Array(others)
        }
    }

    /// A grid cell at the cluster's zoom (cells are `radius` pixels square).
    public struct Cell: Sendable, Hashable, Comparable {
        /// Column (eastward) and row (southward) of the cell at the cluster's zoom.
        public let x: Int
        public let y: Int
        public init(x: Int, y: Int) {
            self.x = x
            self.y = y
        }
        public static func < (a: Cell, b: Cell) -> Bool { a.y < b.y || (a.y == b.y && a.x < b.x) }
    }

    /// Most cells one id may name, and the largest offset of a further cell.
    public static let maxCells = 256
    /// (See `maxCells`.)
    public static let maxOffset = 255

    /// The id of one cell at `zoom`.
    public init(zoom: Int, cell: Cell) {
        self.zoom = zoom
        first = cell
        packed = Packed()
        spilled = []
    }

    /// An id for `cells` (sorted and de-duplicated here) at `zoom`; nil when `cells` is empty.
    public init?(zoom: Int, cells: [Cell]) {
        guard !cells.isEmpty else { return nil }
        var sorted = cells.sorted()
        var k = 1
        for i in 1..<sorted.count where sorted[i] != sorted[k - 1] {
            sorted[k] = sorted[i]
            k += 1
        }
        self = sorted.withUnsafeBufferPointer { ClusterID(zoom: zoom, first: $0[0], others: .init(rebasing: $0[1..<k])) }
    }

    /// An id for `cells` (not empty) at `zoom`, sorting and de-duplicating them in place (a scratch buffer):
    /// the same id as `init(zoom:cells:)` without allocating (unless it has many cells), for answers.
    init(zoom: Int, sortingInPlace buffer: UnsafeMutableBufferPointer<Cell>) {
        var cells = buffer
        cells.sort()
        var k = 1
        for i in 1..<cells.count where cells[i] != cells[k - 1] {
            cells[k] = cells[i]
            k += 1
        }
        self.init(zoom: zoom, first: cells[0], others: UnsafeBufferPointer(rebasing: cells[1..<k]))
    }

    public var description: String {
        var out = [UInt8]()
        out.reserveCapacity(24)
        appendText(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the text form (`description`) to `out` as UTF-8, for writers of JSON answers.
    public func appendText(to out: inout [UInt8]) {
        // Each number is a small string (held inline: nothing is allocated).
        func number(_ v: Int) { out.append(contentsOf: String(v).utf8) }
        number(zoom)
        out.append(UInt8(ascii: "."))
        number(first.x)
        out.append(UInt8(ascii: "."))
        number(first.y)
        guard cellCount > 1 else { return }
        for c in others {
            out.append(UInt8(ascii: "."))
            number(c.x - first.x)
            out.append(UInt8(ascii: "."))
            number(c.y - first.y)
        }
    }

    /// Parses the text form; nil unless it is well-formed with `zoom` 0–20, at most
    /// `maxCells` cells, offsets within ±`maxOffset` and no cell named twice.
    /// (Whether the cells exist on a given grid is for the index to say.)
    public init?(_ text: String) {
        guard !text.isEmpty, text.utf8.count <= 4096 else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts.count % 2 == 1, (parts.count - 1) / 2 <= ClusterID.maxCells else { return nil }
        var numbers = [Int]()
        numbers.reserveCapacity(parts.count)
        for p in parts {
            guard !p.isEmpty, p.utf8.count <= 10,
                  p.utf8.enumerated().allSatisfy({ $0.element >= 48 && $0.element <= 57 || ($0.offset == 0 && $0.element == 45 && p.utf8.count > 1) }),
                  let v = Int(p)
            else { return nil }
            numbers.append(v)
        }
        let zoom = numbers[0]
        guard (0...PartyIndex.maxZoom).contains(zoom), numbers[1] >= 0, numbers[2] >= 0 else { return nil }
        let head = Cell(x: numbers[1], y: numbers[2])
        var cells = [head]
        var k = 3
        while k < numbers.count {
            let dx = numbers[k], dy = numbers[k + 1]
            guard abs(dx) <= ClusterID.maxOffset, abs(dy) <= ClusterID.maxOffset else { return nil }
            cells.append(Cell(x: head.x + dx, y: head.y + dy))
            k += 2
        }
        guard Set(cells).count == cells.count, cells.allSatisfy({ $0.x >= 0 && $0.y >= 0 }) else { return nil }
        // The text form is canonical: the first cell must be the least one.
        guard cells.dropFirst().allSatisfy({ head < $0 }) else { return nil }
        let others = cells.dropFirst().sorted()
        self = others.withUnsafeBufferPointer { ClusterID(zoom: zoom, first: head, others: $0) }
    }
}
