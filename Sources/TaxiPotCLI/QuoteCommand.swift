import Foundation
import TaxiPotServer

/// `taxipot quote`: route + fare + split for a pooled ride; prints the JSON of `POST /v1/quote`.
struct QuoteCommand: Command {
    let name = "quote"
    let summary = "quote a pooled ride: route through the drop-offs, metered fare, per-person split"
    let help = """
        Usage: taxipot quote --from LON,LAT --to LON,LAT [--drop-offs LON,LAT[,N];…] [--riders N]
                             [--depart ISO8601] [--class C] [--split P] [--rounding U] [--toll-krw W]
                             [--data DIR]

        Routes from the origin through the drop-offs in order to the destination, meters the fare
        with the schedule of the origin's region in force at the departure, splits it between
        the riders and prints the JSON answer of POST /v1/quote.
          --from LON,LAT       origin (WGS84); its region picks the fare schedule
          --to LON,LAT         destination, where the host (rider 0) gets off
          --drop-offs LIST     stops before the destination: LON,LAT or LON,LAT,N (N riders get
                               off there, default 1), separated by ';'
          --riders N           persons in the taxi, 1 to 10 (default 1 + the drop-off riders)
          --depart T           departure, ISO 8601 (default now; no offset = Seoul time)
          --class C            mid (default) or deluxe
          --split P            equal (default), by_leg or proportional
          --rounding U         share rounding unit: 10 (default) or 100 won
          --toll-krw W         tolls in won, passed through (default 0)
          --data DIR           the dataset folder (default: data); needs DIR/build (make data)
        Exit 0 with the answer; 1 on bad input (the message names the option) or missing data.
        """

    func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, valued: ["from", "to", "drop-offs", "riders", "depart", "class", "split", "rounding",
                                             "toll-krw", "data"])
        guard a.positionals.isEmpty else { throw UsageError("unexpected argument '\(a.positionals[0])'") }
        let fromText = try a.required("from"), toText = try a.required("to")
        guard let origin = Coordinate.parse(fromText) else { throw UsageError("option --from must be lon,lat, got '\(fromText)'") }
        guard let destination = Coordinate.parse(toText) else { throw UsageError("option --to must be lon,lat, got '\(toText)'") }
        var dropOffs = [DropOff]()
        if let list = a.value("drop-offs"), !list.isEmpty {
            for (i, item) in list.split(separator: ";", omittingEmptySubsequences: false).enumerated() {
                let parts = item.split(separator: ",", omittingEmptySubsequences: false)
                guard parts.count == 2 || parts.count == 3, let c = Coordinate.parse(parts[0...1].joined(separator: ",")),
                      parts.count == 2 || Int(parts[2]) != nil
                else {
                    throw UsageError("option --drop-offs: stop \(i) must be LON,LAT or LON,LAT,N, got '\(item)'")
                }
                dropOffs.append(DropOff(coordinate: c, riders: parts.count == 3 ? Int(parts[2]) ?? 1 : 1))
            }
        }
        var departure = SeoulTime.now()
        if let text = a.value("depart") {
            guard let t = SeoulTime.parse(text) else {
                throw UsageError("option --depart must be an ISO 8601 date-time such as 2024-05-01T22:30:00+09:00, got '\(text)'")
            }
            departure = t
        }
        let splitText = a.value("split") ?? "equal"
        guard let split = SplitPolicy(rawValue: splitText) else {
            throw UsageError("option --split must be one of \(SplitPolicy.allCases.map(\.rawValue).joined(separator: ", ")), got '\(splitText)'")
        }
        let riders: Int? = a.value("riders") == nil ? nil : try a.int("riders", default: 1, range: Int.min...Int.max)
        let request = QuoteRequest(
            origin: origin, destination: destination, dropOffs: dropOffs, riders: riders, departure: departure,
            taxiClass: a.value("class") ?? FareRequest.defaultTaxiClass, split: split,
            roundingKrw: try a.int("rounding", default: 10, range: Int.min...Int.max),
            tollKrw: try a.int("toll-krw", default: 0, range: Int.min...Int.max))
        let dataset = try Dataset(directory: a.value("data") ?? "data")
        do {
            let quote = try dataset.quotes.quote(request)
            print(JSONWriter.string(FareJSON.quote(quote, estimateReason: ErrorMapping.estimateReason(of: quote.estimate))))
        } catch {
            throw UsageError(FareCommand.optionMessage(error))
        }
        return 0
    }

}
