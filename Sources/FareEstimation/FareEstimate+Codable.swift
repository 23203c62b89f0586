// Codable conformance: a library caller can hand a fare estimate on as JSON (or any Coder) and
// read it back. Keys are snake_case, like the HTTP API's.
import Fares

extension FareEstimate: Codable {
    enum CodingKeys: String, CodingKey {
        case distanceM = "distance_m"
        case durationS = "duration_s"
        case slowS = "slow_s"
        case departure = "departure"
        case timing = "timing"
        case schedule = "schedule"
        case fare = "fare"
        case split = "split"
        case perPersonKrw = "per_person_krw"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        distanceM = try c.decode(Double.self, forKey: .distanceM)
        durationS = try c.decode(Double.self, forKey: .durationS)
        slowS = try c.decode(Double.self, forKey: .slowS)
        departure = try c.decode(Double.self, forKey: .departure)
        timing = try c.decode(String.self, forKey: .timing)
        schedule = try c.decode(FareSchedule.self, forKey: .schedule)
        fare = try c.decode(FareBreakdown.self, forKey: .fare)
        split = try c.decode([Int].self, forKey: .split)
        perPersonKrw = try c.decode(Int.self, forKey: .perPersonKrw)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(distanceM, forKey: .distanceM)
        try c.encode(durationS, forKey: .durationS)
        try c.encode(slowS, forKey: .slowS)
        try c.encode(departure, forKey: .departure)
        try c.encode(timing, forKey: .timing)
        try c.encode(schedule, forKey: .schedule)
        try c.encode(fare, forKey: .fare)
        try c.encode(split, forKey: .split)
        try c.encode(perPersonKrw, forKey: .perPersonKrw)
    }
}
