import Foundation
import Geo
import Routing

/// Map matching of GPS traces: Newson & Krumm's hidden Markov model over road candidates,
/// with the engine's own routes between candidates (so one-ways and turn rules hold).
///
/// States: for each fix, the points of the nearest road pieces within its search radius.
/// Emission: Gaussian in the fix-to-road distance (σ = the fix's accuracy). Transition:
/// exponential in |route length − great-circle length| between consecutive fixes (β), zero
/// when no route exists, when it detours by more than `maxDetourMeters` or when it is faster
/// than `maxSpeedMps`. Viterbi picks the likeliest sequence; where no transition is possible
/// the model breaks and a new matching starts (as where the trace has a gap).
public struct MapMatcher: Sendable {
    public let engine: RouteEngine

    public init(engine: RouteEngine) { self.engine = engine }

    struct Candidate {
        var location: Coordinate
        var distance: Double
    }

    /// Matches `trace`. Bad input throws (naming the fix); fixes that cannot be placed are
    /// reported per fix; a trace of which no two fixes can be joined by road is `noMatch`.
    public func match(_ trace: [TraceFix], options: MatchOptions = MatchOptions()) throws(MatchError) -> MatchResult {
        try Self.check(trace, options)
        let input = trace
        let trace = Self.smoothed(trace, options)
        let timed = trace[0].time != nil
        let departAt = trace[0].time ?? options.departAt
        var unmatched: [Int: UnmatchedReason] = [:]
        var thinned: [Int] = []

        // Candidates, and thinning: fixes within max(2σ, the spacing floor) of the last kept one are not states.
        var kept: [(index: Int, candidates: [Candidate])] = []
        for (i, fix) in trace.enumerated() {
            let sigma = fix.accuracyMeters ?? options.defaultAccuracyMeters
            if let last = kept.last, i != trace.count - 1,
               trace[last.index].coordinate.distance(to: fix.coordinate) < max(options.thinningSigmas * sigma, options.minSpacingMeters),
               !isGap(trace[last.index], fix, options) {
                if options.tidy { unmatched[i] = .tidied } else { thinned.append(i) }
                continue
            }
            let radius = min(options.maxSearchMeters, max(options.minSearchMeters, options.searchSigmas * sigma))
            let found = engine.nearestRoads(to: fix.coordinate, count: options.maxCandidates, maxMeters: radius)
            guard !found.isEmpty else { unmatched[i] = .noRoadNearby; continue }
            kept.append((i, found.map { Candidate(location: $0.location, distance: $0.distanceMeters) }))
        }

        // Runs split at gaps, then Viterbi over each run (which may break it further).
        var runs: [[(index: Int, candidates: [Candidate])]] = []
        for k in kept {
            if let last = runs.last?.last, !(options.splitGaps && isGap(trace[last.index], trace[k.index], options)) {
                runs[runs.count - 1].append(k)
            } else {
                runs.append([k])
            }
        }
        var chosen: [[(index: Int, candidate: Candidate)]] = []
        for run in runs {
            for (seq, legMeters) in viterbi(run, trace, options, departAt: departAt, timed: timed) {
                let (pruned, dropped) = pruned(seq, legMeters: legMeters, trace, options, departAt: departAt)
                let kept = turnedAtStops(seq, kept: pruned, trace, options, departAt: departAt)
                chosen.append(kept)
                for i in dropped where !kept.contains(where: { $0.index == i }) {
                    if options.tidy { unmatched[i] = .tidied } else { thinned.append(i) }
                }
            }
        }
        let waypoints = Set(chosen.joined().map(\.index))
        thinned = thinned.filter { !waypoints.contains($0) }.sorted()
        for i in waypoints { unmatched[i] = nil }

        // Routes through each chosen sequence.
        var matchings: [Matching] = []
        var placed: [Int: MatchedFix] = [:]
        var pending = chosen[...]
        while let seq = pending.popFirst() {
            guard seq.count >= 2 else {
                for s in seq { unmatched[s.index] = .isolated }
                continue
            }
            guard let pieces = route(seq.map(\.candidate.location), departAt: timed ? trace[seq[0].index].time! : departAt) else {
                // Should not happen (the model only joins routable pairs); halve and retry.
                let mid = seq.count / 2
                pending = [Array(seq[..<mid]), Array(seq[mid...])] + pending
                continue
            }
            let m = matchings.count
            for (w, s) in seq.enumerated() {
                placed[s.index] = MatchedFix(index: s.index, location: s.candidate.location,
                                             distanceMeters: s.candidate.location.distance(to: input[s.index].coordinate),
                                             matchingIndex: m, waypointIndex: w)
            }
            var straight = 0.0
            for w in 1..<seq.count { straight += trace[seq[w - 1].index].coordinate.distance(to: trace[seq[w].index].coordinate) }
            let routeLength = pieces.reduce(0) { $0 + $1.distanceMeters }
            let agreement = max(straight, routeLength) > 0 ? min(straight, routeLength) / max(straight, routeLength) : 1
            let span = seq[seq.count - 1].index - seq[0].index + 1
            let inside = (seq[0].index...seq[seq.count - 1].index).filter { unmatched[$0] == nil }.count
            matchings.append(Matching(fixIndices: seq.map(\.index), pieces: pieces,
                                      confidence: agreement * Double(inside) / Double(span)))
        }
        guard !matchings.isEmpty else {
            throw .noMatch(reason: kept.isEmpty ? "no fix of the trace is near a road"
                           : "no two consecutive fixes of the trace could be joined by a road route")
        }
        // Thinned fixes: projected onto the route between the waypoints around them.
        let legSegments = matchings.map { m in
            var byLeg = Array(repeating: [RouteSegment](), count: m.fixIndices.count - 1)
            for (leg, s) in m.segments where leg < byLeg.count { byLeg[leg].append(s) }
            return byLeg
        }
        for i in thinned { if let p = project(i, input, placed, legSegments) { placed[i] = p } else { unmatched[i] = .isolated } }
        let fixes: [Result<MatchedFix, UnmatchedFix>] = trace.indices.map { i in
            if let p = placed[i] { .success(p) } else { .failure(UnmatchedFix(index: i, reason: unmatched[i] ?? .isolated)) }
        }
        return MatchResult(matchings: matchings, fixes: fixes)
    }

    static func check(_ trace: [TraceFix], _ o: MatchOptions) throws(MatchError) {
        guard trace.count >= 2 else { throw .tooFewFixes(count: trace.count) }
        guard trace.count <= MatchOptions.maxFixes else { throw .tooManyFixes(count: trace.count, limit: MatchOptions.maxFixes) }
        for (name, v) in [("beta", o.betaMeters), ("default accuracy", o.defaultAccuracyMeters), ("gap seconds", o.maxGapSeconds),
                          ("gap metres", o.maxGapMeters)] where !(v.isFinite && v > 0) {
            throw .invalidOption(name: name, reason: "must be a finite number above 0")
        }
        let timed = trace[0].time != nil
        for (i, f) in trace.enumerated() {
            guard f.coordinate.isValid else { throw .invalidCoordinate(index: i) }
            if let a = f.accuracyMeters, !(a.isFinite && a > 0) { throw .invalidAccuracy(index: i) }
            guard (f.time != nil) == timed else { throw .missingTime(index: timed ? i : 0) }
            if let t = f.time {
                guard t.isFinite else { throw .invalidTime(index: i) }
                if i > 0, let p = trace[i - 1].time, t < p { throw .timeGoesBack(index: i, previous: p, time: t) }
            }
        }
    }

    /// Dense noisy fixes averaged with their neighbours: each fix of σ ≥ `smoothingMinAccuracyMeters`
    /// becomes the value at its time of a straight line fitted (least squares, lon and lat against
    /// time) to the fixes within `smoothingSeconds` of it, not across a gap. Inside the trace the
    /// window is symmetric and the fit is the mean; near an end, where one side is missing, the
    /// window keeps its size on the other side (up to twice `smoothingSeconds`), so the first and
    /// last fixes, which set where the route starts and ends, are estimated from several fixes
    /// too. σ becomes the fit's standard error at that time (σ·√(1/n + (t − t̄)²/Σ(tⱼ − t̄)²)),
    /// at least `smoothingMinAccuracyMeters / 2` (a fit cuts a corner by a few metres).
    /// At 1 Hz and σ 20 m, single fixes off by 40 m are common, and each can pull the model onto
    /// the other carriageway or round a block; five averaged are rarely off by 20 m.
    static func smoothed(_ trace: [TraceFix], _ o: MatchOptions) -> [TraceFix] {
        guard o.smoothingSeconds > 0, trace[0].time != nil else { return trace }
        func joined(_ j: Int) -> Bool { trace[j].coordinate.distance(to: trace[j + 1].coordinate) < o.maxGapMeters }
        var out = trace
        for (i, f) in trace.enumerated() {
            let sigma = f.accuracyMeters ?? o.defaultAccuracyMeters
            guard sigma >= o.smoothingMinAccuracyMeters, let t = f.time else { continue }
            // Within the window on each side, then within twice it (the room to shift the window into).
            func reach(_ limit: Double) -> (lo: Int, hi: Int) {
                var lo = i, hi = i
                while lo > 0, t - trace[lo - 1].time! <= limit, joined(lo - 1) { lo -= 1 }
                while hi < trace.count - 1, trace[hi + 1].time! - t <= limit, joined(hi) { hi += 1 }
                return (lo, hi)
            }
            let near = reach(o.smoothingSeconds), far = reach(2 * o.smoothingSeconds)
            let h = max(i - near.lo, near.hi - i)
            var lo = i - h, hi = i + h
            if lo < far.lo { lo = far.lo; hi = min(far.hi, lo + 2 * h) }
            if hi > far.hi { hi = far.hi; lo = max(far.lo, hi - 2 * h) }
            let n = Double(hi - lo + 1)
            guard hi - lo >= 2 else { continue }
            var tMean = 0.0, lonMean = 0.0, latMean = 0.0
            for j in lo...hi { tMean += trace[j].time!; lonMean += trace[j].coordinate.lon; latMean += trace[j].coordinate.lat }
            tMean /= n; lonMean /= n; latMean /= n
            var stt = 0.0, stLon = 0.0, stLat = 0.0
            for j in lo...hi {
                let dt = trace[j].time! - tMean
                stt += dt * dt
                stLon += dt * (trace[j].coordinate.lon - lonMean)
                stLat += dt * (trace[j].coordinate.lat - latMean)
            }
            guard stt > 0 else { continue }
            let dt = t - tMean
            out[i].coordinate = Coordinate(lon: lonMean + stLon / stt * dt, lat: latMean + stLat / stt * dt)
            out[i].accuracyMeters = max(sigma * (1 / n + dt * dt / stt).squareRoot(), o.smoothingMinAccuracyMeters / 2)
        }
        return out
    }

    func isGap(_ a: TraceFix, _ b: TraceFix, _ o: MatchOptions) -> Bool {
        if let ta = a.time, let tb = b.time, tb - ta > o.maxGapSeconds { return true }
        return a.coordinate.distance(to: b.coordinate) > o.maxGapMeters
    }

    /// The likeliest candidate per fix of `run`, as one or more sequences (split where the
    /// model breaks: no candidate of a fix reachable from any of the previous one's), each with
    /// the route lengths between its consecutive candidates (from the model's own tables).
    func viterbi(_ run: [(index: Int, candidates: [Candidate])], _ trace: [TraceFix], _ o: MatchOptions,
                 departAt: Double, timed: Bool) -> [(sequence: [(index: Int, candidate: Candidate)], legMeters: [Double])] {
        func emission(_ c: Candidate, _ i: Int) -> Double {
            let sigma = trace[i].accuracyMeters ?? o.defaultAccuracyMeters
            return -0.5 * (c.distance / sigma) * (c.distance / sigma)
        }
        var out: [(sequence: [(index: Int, candidate: Candidate)], legMeters: [Double])] = []
        var score: [Double] = []
        var back: [[Int]] = []       // per step of the current sequence, per candidate: the previous candidate
        var backMeters: [[Double]] = []  // … and the route length from it
        var start = 0
        func finish(upTo end: Int) {
            guard end >= start, let best = score.indices.max(by: { score[$0] < score[$1] }) else { return }
            var c = best
            var seq: [(index: Int, candidate: Candidate)] = []
            var legs: [Double] = []
            var step = end
            while step >= start {
                seq.append((run[step].index, run[step].candidates[c]))
                if step > start { legs.append(backMeters[step - start][c]); c = back[step - start][c] }
                step -= 1
            }
            out.append((seq.reversed(), legs.reversed()))
        }
        for (k, step) in run.enumerated() {
            if k == start {
                score = step.candidates.map { emission($0, step.index) }
                back = [Array(repeating: -1, count: step.candidates.count)]
                backMeters = [Array(repeating: 0, count: step.candidates.count)]
                continue
            }
            let prev = run[k - 1]
            let a = trace[prev.index], b = trace[step.index]
            let straight = a.coordinate.distance(to: b.coordinate)
            // The straight line between two fixes is itself off by about σ√2: β grows with σ.
            let beta = max(o.betaMeters, o.betaPerSigma * ((a.accuracyMeters ?? o.defaultAccuracyMeters) + (b.accuracyMeters ?? o.defaultAccuracyMeters)) / 2)
            let elapsed = timed ? b.time! - a.time! : nil
            let table = try? engine.table(TableRequest(sources: prev.candidates.map(\.location), destinations: step.candidates.map(\.location),
                                                       departAt: departAt + (timed ? a.time! - trace[run[0].index].time! : 0), maxSnapMeters: 1))
            var next = Array(repeating: -Double.infinity, count: step.candidates.count)
            var from = Array(repeating: -1, count: step.candidates.count)
            var fromMeters = Array(repeating: 0.0, count: step.candidates.count)
            for j in step.candidates.indices {
                for i in prev.candidates.indices where score[i] > -.infinity {
                    guard let d = table?.distanceMeters(source: i, destination: j) else { continue }
                    if d - straight > o.maxDetourMeters { continue }
                    // Fixes a second apart may lag the car: the speed bound allows a 30 s slack.
                    if let elapsed, d > o.maxSpeedMps * max(elapsed, 30) { continue }
                    let s = score[i] - abs(d - straight) / beta
                    if s > next[j] { next[j] = s; from[j] = i; fromMeters[j] = d }
                }
                if from[j] >= 0 { next[j] += emission(step.candidates[j], step.index) }
            }
            if from.allSatisfy({ $0 < 0 }) {
                // The model breaks: close the sequence so far and start again here.
                finish(upTo: k - 1)
                start = k
                score = step.candidates.map { emission($0, step.index) }
                back = [Array(repeating: -1, count: step.candidates.count)]
                backMeters = [Array(repeating: 0, count: step.candidates.count)]
            } else {
                score = next
                back.append(from)
                backMeters.append(fromMeters)
            }
        }
        finish(upTo: run.count - 1)
        return out
    }

    /// `seq` without the waypoints that only make the route turn back: a waypoint is dropped
    /// when the route through it is longer than the route past it (from the waypoint kept
    /// before to the next one) by more than its fix's σ (at most 10 m). GPS noise along the road puts a fix
    /// behind the one before it now and then; routed through, that adds a U-turn (or, on a
    /// one-way road, a loop round the block) the car never drove. A detour the car did drive
    /// is longer than that and stays. A fix within 4σ of the last one kept that the road reaches only
    /// by a detour longer than 4σ (at least 50 m) is noise too, and is dropped.
    /// `legMeters[k]`: the route length from `seq[k]` to `seq[k + 1]` (the model's); only the
    /// routes that skip a waypoint are searched here.
    func pruned(_ seq: [(index: Int, candidate: Candidate)], legMeters: [Double], _ trace: [TraceFix], _ o: MatchOptions,
                departAt: Double) -> (kept: [(index: Int, candidate: Candidate)], dropped: [Int]) {
        guard seq.count > 2 else { return (seq, []) }
        func distance(_ a: Coordinate, _ b: Coordinate) -> Double? { routeMeters(a, b, departAt: departAt) }
        var kept = [seq[0]], dropped: [Int] = []
        var toCurrent: Double? = legMeters[0]
        for k in 1..<(seq.count - 1) {
            let prev = kept[kept.count - 1].candidate.location, here = seq[k].candidate.location, next = seq[k + 1].candidate.location
            let sigma = trace[seq[k].index].accuracyMeters ?? o.defaultAccuracyMeters
            let close = prev.distance(to: here)
            if let a = toCurrent, close < 4 * sigma, a > close + max(50, 4 * sigma) {
                // A fix just behind the last one kept, reached only round the block: noise.
                dropped.append(seq[k].index)
                toCurrent = distance(prev, next)
                continue
            }
            let onward: Double? = legMeters[k]
            // No route past is shorter than the straight line: when the route through is within
            // the allowance of it, the waypoint stays without searching the route past.
            let through = (toCurrent ?? .infinity) + (onward ?? .infinity)
            let searched = through > prev.distance(to: next) + min(sigma, 10) - 1
            if searched, let a = toCurrent, let b = onward, let past = distance(prev, next), a + b > past + min(sigma, 10) {
                dropped.append(seq[k].index)
                toCurrent = past
            } else {
                kept.append(seq[k])
                toCurrent = onward
            }
        }
        kept.append(seq[seq.count - 1])
        return (kept, dropped)
    }

    /// The length of the route from `a` to `b` (both on a road), nil when there is none.
    func routeMeters(_ a: Coordinate, _ b: Coordinate, departAt: Double) -> Double? {
        let t = try? engine.table(TableRequest(sources: [a], destinations: [b], departAt: departAt, maxSnapMeters: 1))
        return t?.distanceMeters(source: 0, destination: 0)
    }

    /// `kept` taken out to each of `o.stops` where the fixes reach it and turn back. A stop is
    /// where the vehicle is known to have stopped (a rider got off); the fixes seldom fall on the
    /// very point where it turned, and the pruning drops the waypoints that only make the route
    /// turn back, so an out-and-back to a stop came out short by up to twice a fix's step.
    /// The fix nearest the stop around the waypoint of `seq` nearest it becomes a waypoint
    /// placed at the stop (its nearest road point), when
    /// - the fixes turn back there: the waypoints before and after it lie on the same side of it
    ///   (the angle between them under 60°; a drive past has them opposite, a corner at 90°);
    /// - the stop is within reach: no further from it than 4σ or the farther of those waypoints;
    /// - the road joins it to the stop both ways: each route no longer than 1.5 × the straight
    ///   line + 2σ + 5 m (not round a block or across a divided road).
    /// A stop at the trace's first or last waypoint is left alone (the route starts or ends there).
    func turnedAtStops(_ seq: [(index: Int, candidate: Candidate)], kept: [(index: Int, candidate: Candidate)], _ trace: [TraceFix],
                       _ o: MatchOptions, departAt: Double) -> [(index: Int, candidate: Candidate)] {
        var kept = kept
        for stop in o.stops where seq.count > 2 {
            let w = seq.indices.min { seq[$0].candidate.location.distance(to: stop) < seq[$1].candidate.location.distance(to: stop) }!
            guard w > 0, w < seq.count - 1,
                  let road = engine.nearestRoads(to: stop, count: 1, maxMeters: o.maxSearchMeters).first?.location else { continue }
            // The fix that stands for the stop: the one nearest it between the neighbouring
            // waypoints (thinned fixes too: its time is when the vehicle was there).
            let i = ((seq[w - 1].index + 1)..<seq[w + 1].index).min { trace[$0].coordinate.distance(to: stop) < trace[$1].coordinate.distance(to: stop) }!
            let here = trace[i].coordinate, at = seq[w].candidate.location
            let a = trace[seq[w - 1].index].coordinate, b = trace[seq[w + 1].index].coordinate
            let sigma = trace[i].accuracyMeters ?? o.defaultAccuracyMeters
            let (ax, ay) = Self.flat(a, from: here), (bx, by) = Self.flat(b, from: here)
            let la = (ax * ax + ay * ay).squareRoot(), lb = (bx * bx + by * by).squareRoot()
            guard la > 0, lb > 0, (ax * bx + ay * by) / (la * lb) > 0.5 else { continue }
            let straight = at.distance(to: road)
            guard straight <= max(4 * sigma, la, lb) else { continue }
            let allowed = 1.5 * straight + 2 * sigma + 5
            guard let out = routeMeters(at, road, departAt: departAt), out <= allowed,
                  let back = routeMeters(road, at, departAt: departAt), back <= allowed else { continue }
            let placed = (index: i, candidate: Candidate(location: road, distance: road.distance(to: here)))
            if let k = kept.firstIndex(where: { $0.index >= i }) {
                if kept[k].index == i { kept[k] = placed } else { kept.insert(placed, at: k) }
            }
        }
        return kept
    }

    /// The route through `points` in pieces of at most the engine's waypoint limit; nil when a
    /// leg has no route.
    func route(_ points: [Coordinate], departAt: Double) -> [RouteResult]? {
        var pieces: [RouteResult] = []
        var first = 0
        let size = RouteEngine.maxViaPoints + 2
        while first < points.count - 1 {
            let last = min(points.count - 1, first + size - 1)
            let request = RouteRequest(from: points[first], to: points[last], via: Array(points[(first + 1)..<last]),
                                       departAt: departAt, metric: .time, maxSnapMeters: 1)
            guard let r = try? engine.route(request) else { return nil }
            pieces.append(r)
            first = last
        }
        return pieces
    }

    /// A thinned fix placed on its matching's route: the nearest point of the segments of the
    /// leg between the waypoints before and after it.
    /// `legSegments[m][w]`: the segments of leg w of matching m.
    func project(_ i: Int, _ trace: [TraceFix], _ placed: [Int: MatchedFix], _ legSegments: [[[RouteSegment]]]) -> MatchedFix? {
        guard let before = (0..<i).reversed().first(where: { placed[$0]?.waypointIndex != nil }).flatMap({ placed[$0] }),
              let after = ((i + 1)..<trace.count).first(where: { placed[$0]?.waypointIndex != nil }).flatMap({ placed[$0] }),
              before.matchingIndex == after.matchingIndex, let w = before.waypointIndex else { return nil }
        let p = trace[i].coordinate
        var best: (Coordinate, Double)?
        for s in legSegments[before.matchingIndex][w] {
            let q = Self.nearestPoint(on: s.start, s.end, to: p)
            let d = q.distance(to: p)
            if best == nil || d < best!.1 { best = (q, d) }
        }
        guard let best else {
            return MatchedFix(index: i, location: before.location, distanceMeters: before.location.distance(to: p),
                              matchingIndex: before.matchingIndex, waypointIndex: nil)
        }
        return MatchedFix(index: i, location: best.0, distanceMeters: best.1, matchingIndex: before.matchingIndex, waypointIndex: nil)
    }

    /// Metres east and north from `origin` to `p` (local flat projection).
    static func flat(_ p: Coordinate, from origin: Coordinate) -> (Double, Double) {
        let mLat = earthRadiusMeters * Double.pi / 180, mLon = mLat * cos(origin.lat * Double.pi / 180)
        return ((p.lon - origin.lon) * mLon, (p.lat - origin.lat) * mLat)
    }

    /// The point of segment a–b nearest to p (local flat projection).
    static func nearestPoint(on a: Coordinate, _ b: Coordinate, to p: Coordinate) -> Coordinate {
        let mLat = earthRadiusMeters * Double.pi / 180, mLon = mLat * cos(p.lat * Double.pi / 180)
        let ax = (a.lon - p.lon) * mLon, ay = (a.lat - p.lat) * mLat, bx = (b.lon - p.lon) * mLon, by = (b.lat - p.lat) * mLat
        let ex = bx - ax, ey = by - ay, len2 = ex * ex + ey * ey
        let t = len2 > 0 ? min(1, max(0, -(ax * ex + ay * ey) / len2)) : 0
        return Coordinate(lon: p.lon + (ax + t * ex) / mLon, lat: p.lat + (ay + t * ey) / mLat)
    }
}
