import Foundation

/// A label of the many-to-many search: cost (customized weight units, ms) and length (cm) of
/// the path it stands for, indexed by rank.
struct TableLabel {
    var dist: UInt32
    var length: UInt32
    static let unreached = TableLabel(dist: .max, length: .max)
}

/// What a backward search leaves at a node it settles: the destination and its label there.
struct BucketEntry {
    var column: UInt32
    var dist: UInt32
    var length: UInt32
}

/// One thread's buffers for the many-to-many search.
final class TableScratch: NodeScratch {
    let labels: UnsafeMutablePointer<TableLabel>
    /// The arc each label came by (`startMark | i` for the i-th start), valid where the label is
    /// set: the same as the bidirectional query's labels (`CHLabel.parent`).
    let parents: UnsafeMutablePointer<UInt32>
    var touched: [UInt32] = []
    var heap = PackedMinHeap(capacity: 1024)
    static let startMark: UInt32 = 0x8000_0000

    init(nodeCount: Int) {
        labels = .allocate(capacity: nodeCount)
        labels.initialize(repeating: .unreached, count: nodeCount)
        parents = .allocate(capacity: nodeCount)
        parents.initialize(repeating: 0, count: nodeCount)
    }

    deinit { labels.deallocate(); parents.deallocate() }

    func reset() {
        for r in touched { labels[Int(r)] = .unreached }
        touched.removeAll(keepingCapacity: true)
        heap.removeAll()
    }
}

/// One direction of the upward search of the many-to-many query: the same arcs, stalling and
/// settling order as `CHQueryDirection`, with lengths carried in the labels and no meeting.
struct TableDirection {
    /// The query arcs (`CHQueryArcs`) relaxed and stalled by, with each relaxed arc's index in
    /// the hierarchy (what `parents` records) and the hierarchy's lengths by that index.
    let relaxFirst: UnsafePointer<UInt32>, relax: UnsafePointer<CHQueryArc>, relaxIndex: UnsafePointer<UInt32>
    let relaxLength: UnsafePointer<UInt32>
    let stallFirst: UnsafePointer<UInt32>, stall: UnsafePointer<CHQueryArc>

    /// Runs the whole upward search from the starts already in `s` (labels and heap), calling
    /// `visit(rank, label)` for every node settled, stalled ones included (as the bidirectional
    /// query, which checks a meeting before the stall test).
    @inline(__always)
    func run(_ s: TableScratch, _ visit: (Int, TableLabel) -> Void) {
        run(s) { v, label, _ in visit(v, label) }
    }

    /// `run`, telling `visit` also whether the node is stalled (a higher node already reached
    /// gives a cheaper way to it: its label is not its distance, so no cheapest route meets there).
    @inline(__always)
    func run(_ s: TableScratch, _ visit: (Int, TableLabel, _ stalled: Bool) -> Void) {
        let own = s.labels, parents = s.parents
        var heap = PackedMinHeap()
        var touched = [UInt32]()
        swap(&heap, &s.heap); swap(&touched, &s.touched)
        defer { swap(&heap, &s.heap); swap(&touched, &s.touched) }
        outer: while let (k, node) = heap.pop() {
            let v = Int(node)
            let label = own[v]
            if k != label.dist { continue }
            var stalled = false
            for e in Int(stallFirst[v])..<Int(stallFirst[v + 1]) {
                let a = stall[e]
                let d = own[Int(a.other)].dist
                if d != .max && UInt64(d) + UInt64(a.weight) < UInt64(k) { stalled = true; break }
            }
            visit(v, label, stalled)
            if stalled { continue outer }
            for e in Int(relaxFirst[v])..<Int(relaxFirst[v + 1]) {
                let a = relax[e]
                let nd64 = UInt64(k) + UInt64(a.weight)
                guard nd64 < CHMetric.limit else { continue }
                let x = Int(a.other)
                let nd = UInt32(nd64)
                if nd < own[x].dist {
                    if own[x].dist == .max { touched.append(UInt32(x)) }
                    let arc = relaxIndex[e]
                    own[x] = TableLabel(dist: nd, length: CHMetric.lengthSum(label.length, relaxLength[Int(arc)]))
                    parents[x] = arc
                    heap.push(key: nd, node: UInt32(x))
                }
            }
        }
    }
}

/// The read-only state of one many-to-many search, shared by its threads.
struct HierarchyTableSearch: @unchecked Sendable {
    let graph: RoadGraph
    let time: TimeWeights
    let length: UnsafePointer<UInt32>
    let rank: UnsafePointer<UInt32>
    let forward: TableDirection
    let backward: TableDirection

    /// Resets `s` and puts the starts of the forward search from a source's endpoints in it:
    /// the heads of their edges, with the rest of the edge paid.
    func seedForward(_ ends: [RouteEngine.Endpoint], _ s: TableScratch) {
        s.reset()
        for (i, a) in ends.enumerated() {
            let wa = time(a.edge), len = length[a.edge]
            let r = Int(rank[Int(graph.head[a.edge])])
            let cost = wa - RouteEngine.partial(wa, a.fraction)
            if cost < s.labels[r].dist {
                if s.labels[r].dist == .max { s.touched.append(UInt32(r)) }
                s.labels[r] = TableLabel(dist: cost, length: len - RouteEngine.partial(len, a.fraction))
                s.parents[r] = TableScratch.startMark | UInt32(i)
                s.heap.push(key: cost, node: UInt32(r))
            }
        }
    }

    /// Resets `s` and puts the starts of the backward search from a destination's endpoints in
    /// it: the tails of their edges, with the part of the edge up to the point to pay.
    func seedBackward(_ ends: [RouteEngine.Endpoint], _ s: TableScratch) {
        s.reset()
        for (i, t) in ends.enumerated() {
            let wt = time(t.edge), len = length[t.edge]
            let r = Int(rank[graph.tail(of: t.edge)])
            let extra = RouteEngine.partial(wt, t.fraction)
            if extra < s.labels[r].dist {
                if s.labels[r].dist == .max { s.touched.append(UInt32(r)) }
                s.labels[r] = TableLabel(dist: extra, length: RouteEngine.partial(len, t.fraction))
                s.parents[r] = TableScratch.startMark | UInt32(i)
                s.heap.push(key: extra, node: UInt32(r))
            }
        }
    }

    /// The backward search from destination `j`'s endpoints (the same starts, in the same order,
    /// as `hierarchySearch`'s targets), recording every node it settles.
    func searchBackward(_ ends: [RouteEngine.Endpoint], column j: Int, scratch s: TableScratch, into records: RecordList) {
        seedBackward(ends, s)
        backward.run(s) { v, label in
            records.nodes.append(UInt32(v))
            records.entries.append(BucketEntry(column: UInt32(j), dist: label.dist, length: label.length))
        }
    }

    /// Source `i`'s row: the route along one edge where there is one (as `searchEnds` picks it:
    /// the first of the cheapest), then the forward search from its endpoints (the same starts,
    /// in the same order, as `hierarchySearch`'s sources) scanning the buckets it settles.
    func searchForward(_ ends: [RouteEngine.Endpoint], row: Int, onEdge: [UInt32: [(column: Int, endpoint: RouteEngine.Endpoint)]],
                       buckets: Buckets, scratch s: TableScratch, into out: TableCells)
    {
        let rowDist = out.durations + row * out.columns, rowLength = out.lengths + row * out.columns
        for a in ends {
            guard let list = onEdge[graph.edgePiece[a.edge]] else { continue }
            let wa = time(a.edge), len = length[a.edge]
            for (j, b) in list where a.fraction <= b.fraction {
                let cost = RouteEngine.partial(wa, b.fraction) - RouteEngine.partial(wa, a.fraction)
                if cost < rowDist[j] {
                    rowDist[j] = cost
                    rowLength[j] = RouteEngine.partial(len, b.fraction) - RouteEngine.partial(len, a.fraction)
                }
            }
        }
        seedForward(ends, s)
        let first = buckets.first, entries = buckets.entries
        forward.run(s) { v, label in
            for k in first[v]..<first[v + 1] {
                let b = entries[k]
                let c = label.dist &+ b.dist  // both below 2^31
                let j = Int(b.column)
                let current = rowDist[j]
                if c > current { continue }
                let l = CHMetric.lengthSum(label.length, b.length)
                if c < current || l < rowLength[j] {
                    rowDist[j] = c
                    rowLength[j] = l
                }
            }
        }
    }
}

/// The backward searches' records by rank: those of node `v` are `entries[first[v]..<first[v + 1]]`.
struct Buckets: @unchecked Sendable {
    let first: UnsafePointer<Int>
    let entries: UnsafePointer<BucketEntry>
}

extension RouteEngine {
    /// The many-to-many search over the hierarchy customized as `metric` (bucket-based, as in
    /// OSRM's table plugin and RoutingKit): a full backward upward search from each destination
    /// records (destination, cost, length) at every node it settles; a full forward upward
    /// search from each source then scans the records at the nodes it settles. A cell's answer
    /// is the cheapest meeting, ties going to the shorter, starting from the route along one
    /// edge when there is one: the same route `hierarchySearch` returns (see there).
    func hierarchyTable(_ from: [[Endpoint]], _ to: [[Endpoint]], metric: CHMetric, hour: Int, into out: TableCells) {
        let g = graph
        let n = g.nodeCount
        let columns = to.count, rows = from.count
        withTableSearch(metric: metric, hour: hour) { search in
            // Backward searches, destinations spread over the cores; each thread keeps its records.
            let backWorkers = TableCells.workers(rows: columns, cells: columns, cellsPerWorker: 8)
            let perWorker = (0..<backWorkers).map { _ in RecordList() }
            let nextColumn = RowCounter()
            DispatchQueue.concurrentPerform(iterations: backWorkers) { w in
                tablePool.withScratch { s in
                    while let j = nextColumn.take(below: columns) {
                        search.searchBackward(to[j], column: j, scratch: s, into: perWorker[w])
                    }
                }
            }
            // Buckets by rank (a counting sort of the records; the order within a bucket
            // does not matter: a cell's answer is the least (cost, length) seen).
            var bucketFirst = [Int](repeating: 0, count: n + 1)
            for list in perWorker { for v in list.nodes { bucketFirst[Int(v) + 1] += 1 } }
            for v in 0..<n { bucketFirst[v + 1] += bucketFirst[v] }
            var entries = [BucketEntry](repeating: BucketEntry(column: 0, dist: 0, length: 0), count: bucketFirst[n])
            var fill = bucketFirst
            for list in perWorker {
                for (v, e) in zip(list.nodes, list.entries) {
                    entries[fill[Int(v)]] = e
                    fill[Int(v)] += 1
                }
            }
            // Routes along one edge: the destinations' endpoints by edge (piece and direction).
            var onEdge: [UInt32: [(column: Int, endpoint: Endpoint)]] = [:]
            for (j, ends) in to.enumerated() {
                for t in ends { onEdge[g.edgePiece[t.edge], default: []].append((j, t)) }
            }
            let edgeLists = onEdge
            let workers = TableCells.workers(rows: rows, cells: rows * columns, cellsPerWorker: 256)
            let nextRow = RowCounter()
            entries.withUnsafeBufferPointer { entriesB in
                bucketFirst.withUnsafeBufferPointer { firstB in
                    let buckets = Buckets(first: firstB.baseAddress!, entries: entriesB.baseAddress!)
                    DispatchQueue.concurrentPerform(iterations: workers) { _ in
                        tablePool.withScratch { s in
                            while let i = nextRow.take(below: rows) {
                                search.searchForward(from[i], row: i, onEdge: edgeLists, buckets: buckets, scratch: s, into: out)
                            }
                        }
                    }
                }
            }
        }
    }

    /// Runs `body` with the shared state of a many-to-many search on `metric` at `hour` (its
    /// pointers are valid only inside `body`).
    func withTableSearch<R>(metric: CHMetric, hour: Int, _ body: (HierarchyTableSearch) -> R) -> R {
        let g = graph
        let arcs = metric.query
        return timeFactors[hour].withUnsafeBufferPointer { q in
            arcs.upFirst.withUnsafeBufferPointer { upFirst in
            arcs.up.withUnsafeBufferPointer { up in
            arcs.upIndex.withUnsafeBufferPointer { upIndex in
            arcs.downFirst.withUnsafeBufferPointer { downFirst in
            arcs.down.withUnsafeBufferPointer { down in
            arcs.downIndex.withUnsafeBufferPointer { downIndex in
            metric.upLength.withUnsafeBufferPointer { upL in
            metric.downLength.withUnsafeBufferPointer { downL in
                body(HierarchyTableSearch(
                    graph: g, time: TimeWeights(g, q: q), length: g.length.baseAddress!, rank: g.chRank.baseAddress!,
                    forward: TableDirection(relaxFirst: upFirst.baseAddress!, relax: up.baseAddress!, relaxIndex: upIndex.baseAddress!,
                                            relaxLength: upL.baseAddress!, stallFirst: downFirst.baseAddress!, stall: down.baseAddress!),
                    backward: TableDirection(relaxFirst: downFirst.baseAddress!, relax: down.baseAddress!, relaxIndex: downIndex.baseAddress!,
                                             relaxLength: downL.baseAddress!, stallFirst: upFirst.baseAddress!, stall: up.baseAddress!)))
            }
            }
            }
            }
            }
            }
            }
            }
        }
    }
}

/// One thread's bucket records: the rank each was left at, and the record.
final class RecordList: @unchecked Sendable {
    var nodes: [UInt32] = []
    var entries: [BucketEntry] = []
}
