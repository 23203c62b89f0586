// Codable conformances: a library caller can hand these results on as JSON (or any
// Coder) and read them back. Keys are snake_case, like the HTTP API's.

extension ChargingRule: Codable {}

extension ClockTime: Codable {
    enum CodingKeys: String, CodingKey {
        case secondOfDay = "second_of_day"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        secondOfDay = try c.decode(Int.self, forKey: .secondOfDay)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(secondOfDay, forKey: .secondOfDay)
    }
}

extension NightBand: Codable {
    enum CodingKeys: String, CodingKey {
        case from = "from"
        case to = "to"
        case percent = "percent"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        from = try c.decode(ClockTime.self, forKey: .from)
        to = try c.decode(ClockTime.self, forKey: .to)
        percent = try c.decode(Int.self, forKey: .percent)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(from, forKey: .from)
        try c.encode(to, forKey: .to)
        try c.encode(percent, forKey: .percent)
    }
}

extension FareSchedule: Codable {
    enum CodingKeys: String, CodingKey {
        case id = "id"
        case region = "region"
        case regionName = "region_name"
        case taxiClass = "taxi_class"
        case effectiveFrom = "effective_from"
        case baseFareKrw = "base_fare_krw"
        case baseDistanceM = "base_distance_m"
        case distanceUnitM = "distance_unit_m"
        case distanceUnitKrw = "distance_unit_krw"
        case timeUnitS = "time_unit_s"
        case timeUnitKrw = "time_unit_krw"
        case speedThresholdKmh = "speed_threshold_kmh"
        case nightBands = "night_bands"
        case outOfCityPercent = "out_of_city_percent"
        case combinedPercentCap = "combined_percent_cap"
        case surchargedBaseRoundingKrw = "surcharged_base_rounding_krw"
        case roundingKrw = "rounding_krw"
        case charging = "charging"
        case source = "source"
        case bandBoundaries = "band_boundaries"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        region = try c.decode(String.self, forKey: .region)
        regionName = try c.decode(String.self, forKey: .regionName)
        taxiClass = try c.decode(String.self, forKey: .taxiClass)
        effectiveFrom = try c.decode(Double.self, forKey: .effectiveFrom)
        baseFareKrw = try c.decode(Int.self, forKey: .baseFareKrw)
        baseDistanceM = try c.decode(Double.self, forKey: .baseDistanceM)
        distanceUnitM = try c.decode(Double.self, forKey: .distanceUnitM)
        distanceUnitKrw = try c.decode(Int.self, forKey: .distanceUnitKrw)
        timeUnitS = try c.decode(Double.self, forKey: .timeUnitS)
        timeUnitKrw = try c.decode(Int.self, forKey: .timeUnitKrw)
        speedThresholdKmh = try c.decode(Double.self, forKey: .speedThresholdKmh)
        nightBands = try c.decode([NightBand].self, forKey: .nightBands)
        outOfCityPercent = try c.decode(Int.self, forKey: .outOfCityPercent)
        combinedPercentCap = try c.decodeIfPresent(Int.self, forKey: .combinedPercentCap)
        surchargedBaseRoundingKrw = try c.decode(Int.self, forKey: .surchargedBaseRoundingKrw)
        roundingKrw = try c.decode(Int.self, forKey: .roundingKrw)
        charging = try c.decode(ChargingRule.self, forKey: .charging)
        source = try c.decode(String.self, forKey: .source)
        bandBoundaries = try c.decode([Int].self, forKey: .bandBoundaries)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(region, forKey: .region)
        try c.encode(regionName, forKey: .regionName)
        try c.encode(taxiClass, forKey: .taxiClass)
        try c.encode(effectiveFrom, forKey: .effectiveFrom)
        try c.encode(baseFareKrw, forKey: .baseFareKrw)
        try c.encode(baseDistanceM, forKey: .baseDistanceM)
        try c.encode(distanceUnitM, forKey: .distanceUnitM)
        try c.encode(distanceUnitKrw, forKey: .distanceUnitKrw)
        try c.encode(timeUnitS, forKey: .timeUnitS)
        try c.encode(timeUnitKrw, forKey: .timeUnitKrw)
        try c.encode(speedThresholdKmh, forKey: .speedThresholdKmh)
        try c.encode(nightBands, forKey: .nightBands)
        try c.encode(outOfCityPercent, forKey: .outOfCityPercent)
        try c.encodeIfPresent(combinedPercentCap, forKey: .combinedPercentCap)
        try c.encode(surchargedBaseRoundingKrw, forKey: .surchargedBaseRoundingKrw)
        try c.encode(roundingKrw, forKey: .roundingKrw)
        try c.encode(charging, forKey: .charging)
        try c.encode(source, forKey: .source)
        try c.encode(bandBoundaries, forKey: .bandBoundaries)
    }
}
