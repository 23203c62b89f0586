import Foundation
import TaxiPotServer

/// `taxipot route`: one route, printed as the JSON `GET /v1/route` answers.
struct RouteCommand: Command {
    let name = "route"
    let summary = "compute a car route and print it as JSON (same answer as GET /v1/route)"
    let help = """
        Usage: taxipot route --from LON,LAT --to LON,LAT [--via LON,LAT;LON,LAT…] [--depart-at ISO8601]
                             [--metric time|distance] [--geometry polyline6|geojson|none]
                             [--max-snap-m M] [--graph PATH] [--data DIR]

          --from, --to     start and destination, longitude,latitude (WGS84)
          --via            points to pass in order, separated by ';' (at most 25)
          --depart-at      departure time, ISO 8601; no offset means Seoul time (default: now)
          --metric         minimise travel time (default) or distance
          --geometry       polyline6 (default), geojson or none
          --max-snap-m     how far a point may be from a road, metres (default 200)
          --graph PATH     prepared graph (default: DIR/build/seoul.graph)
          --data DIR       dataset folder for the traffic profile and the default graph (default: data)
        Exit 1 with a message when a point is off the road network or no route exists.
        """

    func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, valued: ["from", "to", "via", "depart-at", "metric", "geometry", "max-snap-m", "graph", "data"])
        guard a.positionals.isEmpty else { throw UsageError("unexpected argument '\(a.positionals[0])'") }
        func coordinate(_ name: String) throws -> Coordinate {
            let text = try a.required(name)
            guard let c = Coordinate.parse(text) else { throw UsageError("option --\(name) must be lon,lat, got '\(text)'") }
            return c
        }
        let from = try coordinate("from"), to = try coordinate("to")
        var via: [Coordinate] = []
        if let text = a.value("via"), !text.isEmpty {
            guard let list = Coordinate.parseList(text) else { throw UsageError("option --via must be lon,lat;lon,lat;…, got '\(text)'") }
            via = list
        }
        var departAt = SeoulTime.now()
        if let text = a.value("depart-at") {
            guard let t = SeoulTime.parse(text) else { throw UsageError("option --depart-at must be ISO 8601 (2025-05-01T08:30:00+09:00), got '\(text)'") }
            departAt = t
        }
        let metricText = a.value("metric") ?? "time"
        guard let metric = RouteMetric(rawValue: metricText) else { throw UsageError("option --metric must be time or distance, got '\(metricText)'") }
        let formatText = a.value("geometry") ?? "polyline6"
        guard let format = RouteGeometryFormat(rawValue: formatText) else {
            throw UsageError("option --geometry must be polyline6, geojson or none, got '\(formatText)'")
        }
        let snap = try a.double("max-snap-m") ?? 200
        let data = a.value("data") ?? "data"
        let graphPath = a.value("graph") ?? (data as NSString).appendingPathComponent("build/seoul.graph")
        let graph = try RoadGraph.load(path: graphPath)
        let profile = try TrafficProfile.load(path: (data as NSString).appendingPathComponent("traffic/profile.csv"))
        let engine = RouteEngine(graph: graph, profile: profile)
        let request = RouteRequest(from: from, to: to, via: via, departAt: departAt, metric: metric, maxSnapMeters: snap)
        do {
            let result = try engine.route(request)
            print(JSONWriter.string(RouteJSON.encode(result, departAt: departAt, geometry: format)))
            return 0
        } catch {
            printError("taxipot route: \(error.message(naming: \.description, option: Self.option))")
            return 1
        }
    }

    /// The command-line option that gives a route or table option.
    static func option(_ o: RouteOption) -> String {
        switch o {
        case .maxSnapMeters: "--max-snap-m"
        case .departure: "--depart-at"
        case .sources: "--sources"
        case .destinations: "--destinations"
        }
    }
}
