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
    public let others: [Cell]

    /// All the cells, sorted by `y` then `x`.
    public var cells: [Cell] { [first] + others }
    /// Number of cells.
    public var cellCount: Int { 1 + others.count }

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
        others = []
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
        self.zoom = zoom
        first = sorted[0]
        others = Array(sorted[1..<k])
    }

    /// An id for `cells` (not empty) at `zoom`, sorting and de-duplicating them in place (a scratch buffer):
    /// the same id as `init(zoom:cells:)` with one allocation instead of three, for answers.
    init(zoom: Int, sortingInPlace buffer: UnsafeMutableBufferPointer<Cell>) {
        var cells = buffer
        cells.sort()
        var k = 1
        for i in 1..<cells.count where cells[i] != cells[k - 1] {
            cells[k] = cells[i]
            k += 1
        }
        self.zoom = zoom
        first = cells[0]
        others = Array(cells[1..<k])
    }

    public var description: String {
        var s = "\(zoom).\(first.x).\(first.y)"
        for c in others { s += ".\(c.x - first.x).\(c.y - first.y)" }
        return s
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
        self.zoom = zoom
        first = head
        others = cells.dropFirst().sorted()
    }
}
