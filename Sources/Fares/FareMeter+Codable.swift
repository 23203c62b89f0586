// Codable conformances: a library caller can hand these results on as JSON (or any
// Coder) and read them back. Keys are snake_case, like the HTTP API's.

extension TripSegment: Codable {
    enum CodingKeys: String, CodingKey {
        case distanceM = "distance_m"
        case durationS = "duration_s"
        case slowS = "slow_s"
        case outOfCity = "out_of_city"
        case leg = "leg"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        distanceM = try c.decode(Double.self, forKey: .distanceM)
        durationS = try c.decode(Double.self, forKey: .durationS)
        slowS = try c.decode(Double.self, forKey: .slowS)
        outOfCity = try c.decode(Bool.self, forKey: .outOfCity)
        leg = try c.decode(Int.self, forKey: .leg)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(distanceM, forKey: .distanceM)
        try c.encode(durationS, forKey: .durationS)
        try c.encode(slowS, forKey: .slowS)
        try c.encode(outOfCity, forKey: .outOfCity)
        try c.encode(leg, forKey: .leg)
    }
}

extension FareBreakdown: Codable {
    enum CodingKeys: String, CodingKey {
        case totalKrw = "total_krw"
        case baseKrw = "base_krw"
        case distanceKrw = "distance_krw"
        case timeKrw = "time_krw"
        case nightKrw = "night_krw"
        case outOfCityKrw = "out_of_city_krw"
        case roundingKrw = "rounding_krw"
        case tollKrw = "toll_krw"
        case scheduleID = "schedule_id"
        case distanceUnits = "distance_units"
        case timeUnits = "time_units"
        case legKrw = "leg_krw"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        totalKrw = try c.decode(Int.self, forKey: .totalKrw)
        baseKrw = try c.decode(Int.self, forKey: .baseKrw)
        distanceKrw = try c.decode(Int.self, forKey: .distanceKrw)
        timeKrw = try c.decode(Int.self, forKey: .timeKrw)
        nightKrw = try c.decode(Int.self, forKey: .nightKrw)
        outOfCityKrw = try c.decode(Int.self, forKey: .outOfCityKrw)
        roundingKrw = try c.decode(Int.self, forKey: .roundingKrw)
        tollKrw = try c.decode(Int.self, forKey: .tollKrw)
        scheduleID = try c.decode(String.self, forKey: .scheduleID)
        distanceUnits = try c.decode(Int.self, forKey: .distanceUnits)
        timeUnits = try c.decode(Int.self, forKey: .timeUnits)
        legKrw = try c.decode([Int].self, forKey: .legKrw)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(totalKrw, forKey: .totalKrw)
        try c.encode(baseKrw, forKey: .baseKrw)
        try c.encode(distanceKrw, forKey: .distanceKrw)
        try c.encode(timeKrw, forKey: .timeKrw)
        try c.encode(nightKrw, forKey: .nightKrw)
        try c.encode(outOfCityKrw, forKey: .outOfCityKrw)
        try c.encode(roundingKrw, forKey: .roundingKrw)
        try c.encode(tollKrw, forKey: .tollKrw)
        try c.encode(scheduleID, forKey: .scheduleID)
        try c.encode(distanceUnits, forKey: .distanceUnits)
        try c.encode(timeUnits, forKey: .timeUnits)
        try c.encode(legKrw, forKey: .legKrw)
    }
}

extension SplitPolicy: Codable {}
