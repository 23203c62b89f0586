import Foundation
import TaxiPot

/// `taxipot reverse lon,lat`: the divisions and places at a point.
struct ReverseCommand: Command {
    let name = "reverse"
    let summary = "the 시도/시군구/동 at a point and the places within 300 m"
    let help = """
        Usage: taxipot reverse lon,lat [--radius-m M] [--limit n] [--db PATH]

        Prints the divisions holding the point (by the district polygons in Seoul; elsewhere
        the nearest division, marked approximate), then the nearest places.

        Options:
          --radius-m M       search radius for places, 1–5000 (default 300)
          --limit n          number of places, 0–50 (default 10)
          --db PATH          the place DB (default data/build/places.db)
        """

    func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, valued: ["radius-m", "limit", "db"])
        guard a.positionals.count == 1 else { throw UsageError("give one point as lon,lat (e.g. 127.0276,37.4979)") }
        guard let point = Coordinate.parse(a.positionals[0]) else {
            throw UsageError("the point must be lon,lat in degrees, got '\(a.positionals[0])'")
        }
        let radius = Double(try a.int("radius-m", default: 300, range: 1...5_000))
        let limit = try a.int("limit", default: 10, range: 0...50)
        let index = try PlaceIndex.open(path: a.value("db") ?? "data/build/places.db")
        let r = index.reverse(at: point, radiusMeters: radius, limit: limit)
        if let area = r.area {
            print("\(area.fullName)\t\(area.code)\(area.approximate ? "\t(approximate: nearest division)" : "")")
        } else {
            print("no division here (more than 30 km from any)")
        }
        for hit in r.nearby {
            let p = hit.place
            print("  \(Int((hit.distanceMeters ?? 0).rounded())) m\t\(p.name)\t\(p.category)\t\(p.address)")
        }
        return 0
    }
}
