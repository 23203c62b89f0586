import Geo
@testable import Routing
import TestSupport
import XCTest

/// The many-to-many table against single route requests: every cell is the route's duration
/// and distance exactly (ms and cm), and nil exactly where `route` finds no route.
final class RouteTableTests: XCTestCase {
    /// Asserts that every cell of `table` equals `engine.route` for its pair (duration in ms as
    /// the route's weight and seconds, distance in cm and metres), with `algorithm`.
    func assertCellsEqualRoutes(_ engine: RouteEngine, _ table: RouteTable, sources: [Coordinate], destinations: [Coordinate],
                                departAt: Double, algorithm: SearchAlgorithm, file: StaticString = #filePath, line: UInt = #line) throws -> Int
    {
        var ties = 0
        for (i, a) in sources.enumerated() {
            for (j, b) in destinations.enumerated() {
                let request = RouteRequest(from: a, to: b, departAt: departAt, algorithm: algorithm)
                let route: RouteResult
                do {
                    route = try engine.route(request)
                } catch RoutingError.noRoute {
                    XCTAssertFalse(table.isReachable(source: i, destination: j), "cell \(i),\(j): no route, but the table has one", file: file, line: line)
                    XCTAssertNil(table.durationSeconds(source: i, destination: j), file: file, line: line)
                    XCTAssertNil(table.distanceMeters(source: i, destination: j), file: file, line: line)
                    continue
                }
                let k = i * table.destinationCount + j
                XCTAssertEqual(UInt64(table.durationsMs[k]), route.weight, "cell \(i),\(j) hour \(table.hour): duration", file: file, line: line)
                XCTAssertEqual(table.durationSeconds(source: i, destination: j), route.durationSeconds, "cell \(i),\(j)", file: file, line: line)
                XCTAssertEqual(table.distanceMeters(source: i, destination: j), route.distanceMeters,
                               "cell \(i),\(j) hour \(table.hour): distance", file: file, line: line)
                if table.distancesCm[k] != UInt32((route.distanceMeters * 100).rounded()) { ties += 1 }
            }
        }
        return ties
    }

    /// 40 × 40 random points at six departure hours, against the hierarchy query (what a route
    /// request uses once the hour is customized) and, for the duration, against Dijkstra.
    func testEveryCellEqualsTheSingleRouteOnSeoul() throws {
        let engine = try SeoulFixture.engine()
        let day = SeoulTime.parse("2025-05-02T00:00:00+09:00")!
        for (round, hour) in [3, 8, 12, 18, 22, 0].enumerated() {
            let departAt = day + Double(hour) * 3600 + 600
            let sources = randomPoints(engine, count: 40, seed: UInt64(100 + round))
            let destinations = randomPoints(engine, count: 30, seed: UInt64(200 + round))
            let table = try engine.table(TableRequest(sources: sources, destinations: destinations, departAt: departAt))
            XCTAssertEqual(table.hour, hour)
            XCTAssertEqual(table.sourceCount, 40)
            XCTAssertEqual(table.destinationCount, 30)
            XCTAssertEqual(try assertCellsEqualRoutes(engine, table, sources: sources, destinations: destinations,
                                                      departAt: departAt, algorithm: .hierarchy), 0)
            // The default algorithm, now that the hour is customized, is the same query.
            _ = try assertCellsEqualRoutes(engine, table, sources: Array(sources.prefix(5)), destinations: destinations,
                                           departAt: departAt, algorithm: .astar)
            // Durations are exact: Dijkstra's cost.
            for (i, a) in sources.prefix(4).enumerated() {
                for (j, b) in destinations.enumerated() {
                    let reference = try engine.route(RouteRequest(from: a, to: b, departAt: departAt, algorithm: .dijkstra))
                    XCTAssertEqual(UInt64(table.durationsMs[i * 30 + j]), reference.weight, "cell \(i),\(j) hour \(hour)")
                }
            }
        }
    }

    /// Without destinations the table is square over the sources; a point to itself takes 0.
    func testSquareTableOverTheSources() throws {
        let engine = try SeoulFixture.engine()
        let points = randomPoints(engine, count: 12, seed: 9)
        let table = try engine.table(TableRequest(sources: points, departAt: night))
        XCTAssertEqual(table.destinationCount, 12)
        XCTAssertEqual(table.destinations, table.sources)
        for i in 0..<12 {
            XCTAssertEqual(table.durationSeconds(source: i, destination: i), 0)
            XCTAssertEqual(table.distanceMeters(source: i, destination: i), 0)
        }
        _ = try assertCellsEqualRoutes(engine, table, sources: points, destinations: points, departAt: night, algorithm: .hierarchy)
        let route = try engine.route(RouteRequest(from: points[0], to: points[1], departAt: night))
        XCTAssertEqual(table.sources[0].location, route.snapped[0])
        XCTAssertEqual(table.sources[0].distanceMeters, route.snapDistancesMeters[0])
    }

    /// A traffic profile other than the prepare-time one: no hierarchy covers it, so each cell
    /// is an A* search, and still equals the route.
    func testProfileWithoutHierarchyFallsBackToSearches() throws {
        let seoul = try SeoulFixture.engine()
        var speeds = try SeoulFixture.profile.speedKmh
        for k in speeds.indices where k % 24 == 9 { speeds[k] *= 0.37 }
        let profile = TrafficProfile(speedKmh: speeds, slowShare: try SeoulFixture.profile.slowShare)
        let engine = RouteEngine(graph: seoul.graph, profile: profile)
        let departAt = SeoulTime.parse("2025-05-02T09:30:00+09:00")!
        XCTAssertFalse(engine.prepareHierarchy(hour: 9))
        let sources = randomPoints(engine, count: 8, seed: 51), destinations = randomPoints(engine, count: 7, seed: 52)
        let table = try engine.table(TableRequest(sources: sources, destinations: destinations, departAt: departAt))
        var tiesAllowed = 0
        for (i, a) in sources.enumerated() {
            for (j, b) in destinations.enumerated() {
                let route = try engine.route(RouteRequest(from: a, to: b, departAt: departAt))
                XCTAssertEqual(UInt64(table.durationsMs[i * 7 + j]), route.weight)
                if table.distanceMeters(source: i, destination: j) != route.distanceMeters { tiesAllowed += 1 }
            }
        }
        XCTAssertEqual(tiesAllowed, 0)
    }

    /// Turn restrictions (node copies) on a small map: cells still equal routes. (An imported
    /// graph is one strongly connected component, so every cell there has a route.)
    func testTurnRestrictedMapCellsEqualRoutes() throws {
        var m = TinyMap()
        m.node(1, 0, 0); m.node(2, 200, 0); m.node(3, 200, 200); m.node(4, 0, 200); m.node(5, 100, 100)
        m.way(10, [1, 2], ["highway": "residential", "oneway": "yes"])
        m.way(11, [2, 3]); m.way(12, [3, 4]); m.way(13, [4, 1]); m.way(14, [2, 5, 4])
        m.restriction(900, "no_left_turn", from: 10, via: 2, to: 11)
        let engine = try m.engine()
        let points = [TinyMap.at(60, 0), TinyMap.at(150, 0), TinyMap.at(200, 100), TinyMap.at(100, 200), TinyMap.at(0, 100), TinyMap.at(120, 90)]
        let table = try engine.table(TableRequest(sources: points, departAt: night))
        for i in points.indices { for j in points.indices { XCTAssertTrue(table.isReachable(source: i, destination: j)) } }
        // Behind on the one-way street: around the block, not along the edge.
        XCTAssertGreaterThan(table.distanceMeters(source: 1, destination: 0) ?? 0, 400)
        XCTAssertEqual(table.distanceMeters(source: 0, destination: 1) ?? 0, 90, accuracy: 0.5)
        XCTAssertEqual(try assertCellsEqualRoutes(engine, table, sources: points, destinations: points, departAt: night, algorithm: .hierarchy), 0)
    }

    /// Unreachable cells: the Seoul hierarchy at 03:00 with every arc at 300 nodes cut (weight
    /// infinity), so that some points can reach nothing but their own edge. The table on that
    /// metric is nil exactly where the bidirectional query finds no route, and otherwise has its
    /// cost and length (the route along one edge still counts).
    func testNilExactlyWhereTheHierarchyQueryFindsNoRoute() throws {
        let engine = try SeoulFixture.engine()
        let g = engine.graph
        let hour = 3
        guard let full = engine.hierarchyMetric(hour: hour, wait: true) else { return XCTFail("no hierarchy for 03:00") }
        let points = randomPoints(engine, count: 60, seed: 77)
        let ends = points.map { engine.endpoints(at: $0, maxMeters: 200) }
        XCTAssertTrue(ends.allSatisfy { !$0.isEmpty })
        // Cut the start nodes of a third of the points, and more.
        var cut = Set<Int>()
        for (k, e) in ends.enumerated() where k % 3 == 0 {
            cut.insert(Int(g.chRank[Int(g.head[e[0].edge])])); cut.insert(Int(g.chRank[g.tail(of: e[0].edge)]))
        }
        var rng = SplitMix64(seed: 3)
        while cut.count < 300 { cut.insert(Int(rng.next() % UInt64(g.nodeCount))) }
        var upW = full.upWeight, downW = full.downWeight
        for v in 0..<g.nodeCount {
            for e in Int(g.chUpFirst[v])..<Int(g.chUpFirst[v + 1]) where cut.contains(v) || cut.contains(Int(g.chUpHead[e])) {
                upW[e] = CHMetric.infinity
            }
            for e in Int(g.chDownFirst[v])..<Int(g.chDownFirst[v + 1]) where cut.contains(v) || cut.contains(Int(g.chDownTail[e])) {
                downW[e] = CHMetric.infinity
            }
        }
        let metric = CHMetric(upWeight: upW, downWeight: downW, upUnpack: full.upUnpack, downUnpack: full.downUnpack,
                              upLength: full.upLength, downLength: full.downLength, hierarchy: g, prunedQuery: false)
        let (reachable, unreachable, _) = compareWithHierarchyQuery(engine, ends, metric: metric, hour: hour)
        XCTAssertGreaterThan(unreachable, points.count)
        XCTAssertGreaterThan(reachable, points.count * points.count / 3)
    }

    /// Ties: on the Seoul hierarchy with every arc weighing whole minutes (so that many meetings
    /// cost the same and differ in length), the table picks, cell by cell, the same route as the
    /// bidirectional query: the same cost and the same (shortest) length.
    func testEqualCostTiesGoToTheSameRouteAsTheHierarchyQuery() throws {
        let engine = try SeoulFixture.engine()
        let hour = 3
        guard let full = engine.hierarchyMetric(hour: hour, wait: true) else { return XCTFail("no hierarchy for 03:00") }
        func minutes(_ w: [UInt32]) -> [UInt32] { w.map { $0 == CHMetric.infinity ? $0 : $0 / 60_000 + 1 } }
        let metric = CHMetric(upWeight: minutes(full.upWeight), downWeight: minutes(full.downWeight), upUnpack: full.upUnpack,
                              downUnpack: full.downUnpack, upLength: full.upLength, downLength: full.downLength,
                              hierarchy: engine.graph, prunedQuery: false)
        let ends = randomPoints(engine, count: 50, seed: 78).map { engine.endpoints(at: $0, maxMeters: 200) }
        let (reachable, _, ties) = compareWithHierarchyQuery(engine, ends, metric: metric, hour: hour)
        XCTAssertEqual(reachable, 50 * 50)
        XCTAssertGreaterThan(ties, 50, "too few cells with meetings of equal cost and different lengths to test the tie rule")
    }

    /// Runs the table of `ends` × `ends` on `metric` and the bidirectional query for every cell;
    /// asserts equal cost and length, nil exactly where the query finds no route. Returns the
    /// reachable and unreachable cells, and the cells where another meeting of the same cost
    /// but another length exists (a tie the length decides).
    func compareWithHierarchyQuery(_ engine: RouteEngine, _ ends: [[RouteEngine.Endpoint]], metric: CHMetric, hour: Int,
                                   file: StaticString = #filePath, line: UInt = #line) -> (reachable: Int, unreachable: Int, ties: Int)
    {
        let g = engine.graph
        let n = ends.count
        var durations = [UInt32](repeating: RouteTable.unreachable, count: n * n)
        var lengths = [UInt32](repeating: RouteTable.unreachable, count: n * n)
        durations.withUnsafeMutableBufferPointer { d in
            lengths.withUnsafeMutableBufferPointer { l in
                engine.hierarchyTable(ends, ends, metric: metric, hour: hour, into: TableCells(durations: d.baseAddress!, lengths: l.baseAddress!, columns: n))
            }
        }
        // Per cell, the (cost, length) of every meeting, from full upward searches of each side.
        let scratch = CHQueryScratch(nodeCount: g.nodeCount)
        var unreachable = 0, reachable = 0, ties = 0
        engine.withTableSearch(metric: metric, hour: hour) { search in
            let time = search.time
            let records = RecordList()
            let s = TableScratch(nodeCount: g.nodeCount)
            for j in 0..<n { search.searchBackward(ends[j], column: j, scratch: s, into: records) }
            var byNode: [UInt32: [BucketEntry]] = [:]
            for (v, e) in zip(records.nodes, records.entries) { byNode[v, default: []].append(e) }
            for i in 0..<n {
                var meetings = [[(UInt64, UInt64)]](repeating: [], count: n)
                s.reset()
                for a in ends[i] {
                    let wa = time(a.edge), len = g.length[a.edge]
                    let r = Int(g.chRank[Int(g.head[a.edge])])
                    let cost = wa - RouteEngine.partial(wa, a.fraction)
                    if cost < s.labels[r].dist {
                        if s.labels[r].dist == .max { s.touched.append(UInt32(r)) }
                        s.labels[r] = TableLabel(dist: cost, length: len - RouteEngine.partial(len, a.fraction))
                        s.heap.push(key: cost, node: UInt32(r))
                    }
                }
                search.forward.run(s) { v, label in
                    for b in byNode[UInt32(v)] ?? [] {
                        meetings[Int(b.column)].append((UInt64(label.dist) + UInt64(b.dist), UInt64(label.length) + UInt64(b.length)))
                    }
                }
                for j in 0..<n {
                    let searchEnds = engine.searchEnds(ends[i], ends[j], weights: time)
                    let outcome = g.hierarchySearch(searchEnds, metric: metric, scratch: scratch)
                    guard case .some(.some(let route)) = outcome else {
                        XCTAssertNil(outcome, "cell \(i),\(j): an arc did not unpack", file: file, line: line)
                        XCTAssertEqual(durations[i * n + j], RouteTable.unreachable, "cell \(i),\(j): no route, but the table has one", file: file, line: line)
                        unreachable += 1
                        continue
                    }
                    reachable += 1
                    let cm: UInt64
                    switch route.path {
                    case .direct: cm = searchEnds.direct!.length
                    case .edges(let s, let edges, let t):
                        cm = UInt64(searchEnds.sourceLength[s]) + edges.reduce(0) { $0 + UInt64(g.length[Int($1)]) } + UInt64(searchEnds.targetLength[t])
                    }
                    XCTAssertEqual(UInt64(durations[i * n + j]), route.cost, "cell \(i),\(j)", file: file, line: line)
                    XCTAssertEqual(UInt64(lengths[i * n + j]), cm, "cell \(i),\(j)", file: file, line: line)
                    if Set(meetings[j].filter { $0.0 == route.cost }.map(\.1)).count > 1 { ties += 1 }
                }
            }
        }
        return (reachable, unreachable, ties)
    }

    /// Errors name the point: sources[i] or destinations[j].
    func testErrorsNameThePoint() throws {
        let engine = try SeoulFixture.engine()
        let good = randomPoints(engine, count: 3, seed: 5)
        let sea = Coordinate(lon: 125.0, lat: 36.0)
        XCTAssertThrowsError(try engine.table(TableRequest(sources: good + [sea], departAt: night))) { error in
            guard case RoutingError.outsideCoverage(let point, _, let limit, let nearest, let other) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(point, .source(3))
            XCTAssertEqual(limit, 200)
            XCTAssertNil(other)
            XCTAssertGreaterThan(nearest ?? 0, 50_000, "the sea point is far from every served road")
        }
        XCTAssertThrowsError(try engine.table(TableRequest(sources: good, destinations: [good[0], sea], departAt: night))) { error in
            guard case RoutingError.outsideCoverage(let point, let c, _, _, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(point, .tableDestination(1))
            XCTAssertEqual(c, sea)
        }
        XCTAssertThrowsError(try engine.table(TableRequest(sources: [good[0], Coordinate(lon: 200, lat: 0)], departAt: night))) { error in
            XCTAssertEqual(error as? RoutingError, .invalidCoordinate(point: .source(1)))
        }
        XCTAssertThrowsError(try engine.table(TableRequest(sources: [], departAt: night))) { error in
            XCTAssertEqual(error as? RoutingError, .invalidOption(.sources, reason: "must list at least one point"))
        }
        XCTAssertThrowsError(try engine.table(TableRequest(sources: good, destinations: [], departAt: night)))
        XCTAssertThrowsError(try engine.table(TableRequest(sources: good, departAt: .nan)))
    }
}
