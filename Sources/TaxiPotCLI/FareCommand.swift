import Foundation
import TaxiPotServer

/// `taxipot fare`: a fare for a distance without routing; prints the JSON of `POST /v1/fare`.
struct FareCommand: Command {
    let name = "fare"
    let summary = "taxi fare for a distance (no routing): breakdown and per-person split"
    let help = """
        Usage: taxipot fare --distance-m M --depart ISO8601 [--duration-s S] [--slow-s S]
                            [--region R] [--class C] [--riders N] [--split P] [--rounding U]
                            [--toll-krw W] [--data DIR]

        Meters a trip of M metres with the fare schedule in force at the departure and prints
        the JSON answer of POST /v1/fare (trip, fare breakdown, split, per_person_krw).
          --distance-m M   trip distance in metres (0 to 1,000,000)
          --depart T       departure, ISO 8601 (2024-05-01T22:30:00+09:00; no offset = Seoul time)
          --duration-s S   trip duration; default: from the traffic profile (primary roads)
          --slow-s S       seconds below the meter's speed threshold; default: from the profile
                           (with --duration-s, distance and slow time are spread evenly)
          --region R       seoul (default), busan, incheon, gyeonggi, or any region in DIR/fares
          --class C        mid (default) or deluxe
          --riders N       persons sharing the taxi, 1 to 10 (default 1)
          --split P        equal (default), by_leg or proportional
          --rounding U     share rounding unit: 10 (default) or 100 won
          --toll-krw W     tolls in won, passed through (default 0)
          --data DIR       the dataset folder (default: data)
        Exit 0 with the answer; 1 on bad input (the message names the option).
        """

    func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, valued: ["distance-m", "duration-s", "slow-s", "depart", "region", "class",
                                             "riders", "split", "rounding", "toll-krw", "data"])
        guard a.positionals.isEmpty else { throw UsageError("unexpected argument '\(a.positionals[0])'") }
        guard let distance = try a.double("distance-m") else { throw UsageError("missing required option --distance-m") }
        let departText = try a.required("depart")
        guard let departure = SeoulTime.parse(departText) else {
            throw UsageError("option --depart must be an ISO 8601 date-time such as 2024-05-01T22:30:00+09:00, got '\(departText)'")
        }
        let splitText = a.value("split") ?? "equal"
        guard let split = SplitPolicy(rawValue: splitText) else {
            throw UsageError("option --split must be one of \(SplitPolicy.allCases.map(\.rawValue).joined(separator: ", ")), got '\(splitText)'")
        }
        let request = FareRequest(
            distanceM: distance, durationS: try a.double("duration-s"), slowS: try a.double("slow-s"), departure: departure,
            region: a.value("region") ?? FareRequest.defaultRegion, taxiClass: a.value("class") ?? FareRequest.defaultTaxiClass,
            riders: try a.int("riders", default: 1, range: Int.min...Int.max), split: split,
            roundingKrw: try a.int("rounding", default: 10, range: Int.min...Int.max),
            tollKrw: try a.int("toll-krw", default: 0, range: Int.min...Int.max))
        let estimator = try FareEstimator.load(dataDir: a.value("data") ?? "data")
        do {
            print(JSONWriter.string(FareJSON.estimate(try estimator.estimate(request))))
        } catch {
            throw UsageError(Self.optionMessage(error))
        }
        return 0
    }

    /// A request error with the field named by its CLI option (`--distance-m`).
    static func optionMessage(_ e: FareRequestError) -> String {
        switch e {
        case .invalid(let f, let reason), .conflicting(let f, let reason): return "\(option(f)) \(reason)"
        default: break
        }
        let message = e.message(naming: option, point: { RequestField(quotePoint: $0).map(option) ?? $0.description })
        guard let f = e.field else { return message }
        return "\(option(f)): \(message)"
    }

    /// The option of `taxipot fare` or `taxipot quote` that gives the field.
    static func option(_ f: RequestField) -> String {
        switch f {
        case .distance: "--distance-m"
        case .duration: "--duration-s"
        case .slowTime: "--slow-s"
        case .departure: "--depart"
        case .region: "--region"
        case .taxiClass: "--class"
        case .riders: "--riders"
        case .split: "--split"
        case .rounding: "--rounding"
        case .toll: "--toll-krw"
        case .origin: "--from"
        case .destination: "--to"
        case .dropOffs, .dropOff, .dropOffRiders: "--drop-offs"
        default: ErrorMapping.name(f)
        }
    }
}
