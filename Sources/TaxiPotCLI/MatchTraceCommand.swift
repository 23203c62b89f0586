import Foundation
import TaxiPotServer

/// `taxipot match-trace FILE`: a GPS trace matched to roads, printed as OSRM's match answer.
struct MatchTraceCommand: Command {
    let name = "match-trace"
    let summary = "match a GPS trace (CSV or GPX) to roads and print the driven route as JSON"
    let help = """
        Usage: taxipot match-trace FILE [--accuracy-m M] [--tidy] [--gaps split|ignore] [--graph PATH] [--data DIR]

          FILE           CSV with a header lon,lat[,time][,accuracy] (time: Unix seconds or ISO 8601)
                         or GPX (<trkpt lat lon> with <time>)
          --accuracy-m   GPS σ of fixes that give none, metres (default 10)
          --tidy         leave out fixes within max(2σ, 50 m) of the previous one (null tracepoints)
          --gaps         split (default: a gap over 60 s or 2 km starts a new matching) or ignore
          --graph PATH   prepared graph (default: DIR/build/seoul.graph)
          --data DIR     dataset folder (default: data)
        Prints {"matchings":[{distance,duration,confidence,legs}],"tracepoints":[…|null]}.
        Exit 1 with a message naming the line or fix for bad input, or when no fix matches a road.
        """

    func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, valued: ["accuracy-m", "gaps", "graph", "data"], flags: ["tidy"])
        guard a.positionals.count == 1 else { throw UsageError("give exactly one trace FILE") }
        var options = MatchOptions()
        if let s = try a.double("accuracy-m") {
            guard s > 0 else { throw UsageError("option --accuracy-m must be above 0, got \(s)") }
            options.defaultAccuracyMeters = s
        }
        options.tidy = a.has("tidy")
        switch a.value("gaps") ?? "split" {
        case "split": options.splitGaps = true
        case "ignore": options.splitGaps = false
        case let g: throw UsageError("option --gaps must be split or ignore, got '\(g)'")
        }
        options.departAt = SeoulTime.now()
        let fixes: [TraceFix]
        do { fixes = try TraceFile.read(path: a.positionals[0]) } catch {
            printError("taxipot match-trace: \(error)")
            return 1
        }
        let data = a.value("data") ?? "data"
        let graph = try RoadGraph.load(path: a.value("graph") ?? (data as NSString).appendingPathComponent("build/seoul.graph"))
        let engine = RouteEngine(graph: graph, profile: try TrafficProfile.load(path: (data as NSString).appendingPathComponent("traffic/profile.csv")))
        do {
            let r = try MapMatcher(engine: engine).match(fixes, options: options)
            print(JSONWriter.string(MatchJSON.encode(r)))
            return 0
        } catch {
            printError("taxipot match-trace: \(error.message)")
            return 1
        }
    }
}
