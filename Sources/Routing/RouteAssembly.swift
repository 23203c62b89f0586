import Geo

/// A leg's search outcome with the endpoints it refers to.
struct LegPath {
    var outcome: SearchOutcome
    var sources: [RouteEngine.Endpoint]
    var targets: [RouteEngine.Endpoint]
}

extension RouteEngine {
    /// Turns leg paths into the route: segments, geometry, street names, totals.
    func assemble(legs: [LegPath], requestPoints: [Coordinate], time: TimeWeights, metric: RouteMetric, hour: Int,
                  settled: Int) -> RouteResult
    {
        var segments: [RouteSegment] = []
        var geometry: [Coordinate] = []
        var nameIds: [UInt32] = []
        var legSummaries: [RouteLeg] = []
        var snapped: [Coordinate] = []
        var snapDistances: [Double] = []
        var snappedNames: [String] = []
        func snap(_ end: RouteEngine.Endpoint) {
            snapped.append(end.hit.point)
            snapDistances.append(end.hit.distance)
            snappedNames.append(graph.name(Int(graph.pieceName[Int(graph.edgePiece[end.edge] >> 1)])))
        }
        var weight: UInt64 = 0
        var totalCm: UInt64 = 0, totalMs: UInt64 = 0, measuredCm: UInt64 = 0
        let combos = graph.comboClass.count
        let measured = graph.comboHourMeasured.isEmpty ? nil : graph.comboHourMeasured.baseAddress! + hour * combos
        for (legIndex, leg) in legs.enumerated() {
            // Totals in whole cm and ms, so that they are exact (a time route's ms are its weight)
            // and equal to what the many-to-many search adds up.
            var legCm: UInt64 = 0, legMs: UInt64 = 0
            func add(edge e: Int, from: SnapHit?, fromFraction: Double, to: SnapHit?, toFraction: Double) {
                let len = graph.length[e], w = time(e)
                let cm = Self.partial(len, toFraction) - Self.partial(len, fromFraction)
                let ms = Self.partial(w, toFraction) - Self.partial(w, fromFraction)
                appendPortion(of: e, from: from, to: to, into: &geometry)
                if cm == 0 && ms == 0 && (from != nil || to != nil) { return }
                let piece = Int(graph.edgePiece[e] >> 1)
                let name = graph.pieceName[piece]
                if name != 0 && nameIds.last != name { nameIds.append(name) }
                let cls = RoadClass(rawValue: graph.comboClass[Int(graph.combo[e])]) ?? .service
                let ends = edgeEnds(e)
                segments.append(RouteSegment(distanceMeters: Double(cm) / 100, durationSeconds: Double(ms) / 1000, roadClass: cls,
                                             start: from?.point ?? ends.start, end: to?.point ?? ends.end, legIndex: legIndex))
                legCm += UInt64(cm)
                legMs += UInt64(ms)
                if let measured, measured[Int(graph.combo[e])] != 0 { measuredCm += UInt64(cm) }
            }
            switch leg.outcome.path {
            case .direct(let s, let t):
                let a = leg.sources[s], b = leg.targets[t]
                if legIndex == 0 { snap(a) }
                if geometry.isEmpty { geometry.append(a.hit.point) }
                add(edge: a.edge, from: a.hit, fromFraction: a.fraction, to: b.hit, toFraction: b.fraction)
                snap(b)
            case .edges(let s, let edges, let t):
                let a = leg.sources[s], b = leg.targets[t]
                if legIndex == 0 { snap(a) }
                if geometry.isEmpty { geometry.append(a.hit.point) }
                add(edge: a.edge, from: a.hit, fromFraction: a.fraction, to: nil, toFraction: 1)
                for e in edges { add(edge: Int(e), from: nil, fromFraction: 0, to: nil, toFraction: 1) }
                add(edge: b.edge, from: nil, fromFraction: 0, to: b.hit, toFraction: b.fraction)
                snap(b)
            }
            weight += leg.outcome.cost
            legSummaries.append(RouteLeg(distanceMeters: Double(legCm) / 100, durationSeconds: Double(legMs) / 1000))
            totalCm += legCm
            totalMs += legMs
        }
        return RouteResult(distanceMeters: Double(totalCm) / 100, durationSeconds: Double(totalMs) / 1000,
                           geometry: geometry, legs: legSummaries, snapped: snapped, snapDistancesMeters: snapDistances,
                           streetNames: nameIds.map { names[Int($0)] }, segments: segments, weight: weight,
                           metric: metric, hour: hour, settledNodes: settled,
                           measuredShare: totalCm > 0 ? Double(measuredCm) / Double(totalCm) : 0, snappedNames: snappedNames)
    }

    /// The first and last point of edge `e` in travel order.
    private func edgeEnds(_ e: Int) -> (start: Coordinate, end: Coordinate) {
        let piece = Int(graph.edgePiece[e] >> 1)
        let a = Int(graph.pieceFirstPoint[piece]), b = Int(graph.pieceFirstPoint[piece + 1]) - 1
        let pa = Coordinate(lon: Double(graph.pointLon[a]) / 1e7, lat: Double(graph.pointLat[a]) / 1e7)
        let pb = Coordinate(lon: Double(graph.pointLon[b]) / 1e7, lat: Double(graph.pointLat[b]) / 1e7)
        return graph.edgePiece[e] & 1 == 1 ? (pb, pa) : (pa, pb)
    }

    /// Appends the points of edge `e` between `from` and `to` (nil: the edge's ends), in travel
    /// order, skipping a point equal to the last one already there.
    private func appendPortion(of e: Int, from: SnapHit?, to: SnapHit?, into out: inout [Coordinate]) {
        let piece = Int(graph.edgePiece[e] >> 1)
        let reversed = graph.edgePiece[e] & 1 == 1
        let first = Int(graph.pieceFirstPoint[piece]), last = Int(graph.pieceFirstPoint[piece + 1]) - 1
        func point(_ i: Int) -> Coordinate {
            Coordinate(lon: Double(graph.pointLon[i]) / 1e7, lat: Double(graph.pointLat[i]) / 1e7)
        }
        func push(_ c: Coordinate) { if out.last != c { out.append(c) } }
        if !reversed {
            push(from?.point ?? point(first))
            let i0 = from.map { $0.segmentStart + 1 } ?? first + 1
            let i1 = to.map { $0.segmentStart } ?? last - 1
            if i0 <= i1 { for i in i0...i1 { push(point(i)) } }
            push(to?.point ?? point(last))
        } else {
            push(from?.point ?? point(last))
            let i0 = from.map { $0.segmentStart } ?? last - 1
            let i1 = to.map { $0.segmentStart + 1 } ?? first + 1
            if i0 >= i1 { for i in stride(from: i0, through: i1, by: -1) { push(point(i)) } }
            push(to?.point ?? point(first))
        }
    }
}
