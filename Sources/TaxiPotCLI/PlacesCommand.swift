import Foundation
import TaxiPot

/// `taxipot places "강남역"`: keyword search in the place DB.
struct PlacesCommand: Command {
    let name = "places"
    let summary = "search places by name, 초성, romanisation or address"
    let help = """
        Usage: taxipot places QUERY [--near lon,lat] [--radius-m M] [--rect w,s,e,n] [--category CAT]
                              [--sort accuracy|distance] [--limit n] [--db PATH]

        Prints the best matches, one per line: name, category, address, lon,lat and, with
        --near, the distance in metres.

        Options:
          --near lon,lat     rank places near this point higher
          --radius-m M       only places within M metres of --near (1–20000)
          --rect w,s,e,n     only places inside this rectangle
          --category CAT     only places of this category
          --sort S           accuracy (default) or distance (needs --near)
          --limit n          number of results, 1–50 (default 10)
          --db PATH          the place DB (default data/build/places.db)
        """

    func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, valued: ["near", "radius-m", "rect", "category", "sort", "limit", "db"])
        guard a.positionals.count == 1 else {
            throw UsageError(a.positionals.isEmpty ? "missing the QUERY to search for" : "give the QUERY as one argument (quote it)")
        }
        var query = PlaceQuery(text: a.positionals[0], limit: try a.int("limit", default: 10, range: 1...PlaceQuery.maximumLimit))
        do {
            if let n = a.value("near") { query.near = try PlaceQuery.parseNear(n) }
            if let r = a.value("radius-m") { query.radiusMeters = try PlaceQuery.parseRadius(r) }
            if let r = a.value("rect") { query.rect = try PlaceQuery.parseRect(r) }
            if let s = a.value("sort") { query.sort = try PlaceQuery.parseSort(s) }
        } catch {
            throw UsageError(error.message)
        }
        query.category = a.value("category")
        let index = try PlaceIndex.open(path: a.value("db") ?? "data/build/places.db")
        let result: PlaceSearchResult
        do {
            result = try index.search(query)
        } catch {
            throw UsageError(error.message)
        }
        if result.places.isEmpty { print("no places match '\(query.text)'") }
        for hit in result.places {
            let p = hit.place
            var line = "\(p.name)\t\(p.category)\t\(p.address)\t\(p.lon),\(p.lat)"
            if let d = hit.distanceMeters { line += "\t\(Int(d.rounded())) m" }
            print(line)
        }
        return 0
    }
}
