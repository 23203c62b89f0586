import Foundation
import Geo

/// Why no schedule could be picked for a trip.
public enum FareLookupError: Error, Sendable, CustomStringConvertible, Equatable {
    /// No schedule for this region; `allowed` lists the known regions.
    case unknownRegion(String, allowed: [String])
    /// No schedule of this class in the region; `allowed` lists the region's classes.
    case unknownTaxiClass(String, region: String, allowed: [String])
    /// The departure is before the region and class's oldest schedule; `covered` lists every
    /// schedule of the region and class with its start (`id from …`).
    case beforeOldestSchedule(region: String, taxiClass: String, departure: Double, covered: [String])

    public var description: String {
        switch self {
        case let .unknownRegion(r, allowed):
            return "unknown region '\(r.prefix(40))'; known regions: \(allowed.joined(separator: ", "))"
        case let .unknownTaxiClass(c, region, allowed):
            return "no '\(c.prefix(40))' taxi class in \(region); classes there: \(allowed.joined(separator: ", "))"
        case let .beforeOldestSchedule(region, cls, departure, covered):
            return "no \(region) \(cls) fare schedule is known for a departure at \(SeoulTime.format(departure)); "
                + "schedules cover: \(covered.joined(separator: "; "))"
        }
    }
}

/// Every known fare schedule, picked by region, taxi class and departure instant.
///
/// Loaded from a folder of `*.json` files, one schedule each (see `FareSchedule.parse`);
/// adding a city or a new tariff is adding a file. The schedule in force for a trip is the
/// one of its region and class with the latest `effective_from` not after the departure.
public struct FareScheduleBook: Sendable {
    /// All schedules, by region, then class, then `effectiveFrom` ascending.
    public let schedules: [FareSchedule]

    /// Builds a book; refuses two schedules of the same region and class starting at the same instant.
    public init(schedules: [FareSchedule]) throws(FareScheduleError) {
        let sorted = schedules.sorted {
            ($0.region, $0.taxiClass, $0.effectiveFrom, $0.id) < ($1.region, $1.taxiClass, $1.effectiveFrom, $1.id)
        }
        for (a, b) in zip(sorted, sorted.dropFirst()) {
            if a.id == b.id {
                throw FareScheduleError(file: b.id, field: nil, message: "two schedules share the id '\(a.id)'")
            }
            if a.region == b.region, a.taxiClass == b.taxiClass, a.effectiveFrom == b.effectiveFrom {
                throw FareScheduleError(file: b.id, field: "effective_from",
                                        message: "starts at the same instant as '\(a.id)' for \(a.region) \(a.taxiClass)")
            }
        }
        self.schedules = sorted
    }

    /// Loads every `*.json` file of `directory` (other files are ignored).
    /// Errors name the file and the field at fault.
    public static func load(directory: String) throws(FareScheduleError) -> FareScheduleBook {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw FareScheduleError(file: directory, field: nil, message: "cannot list the fare schedule folder (run from the repository root or pass --data)")
        }
        var schedules = [FareSchedule]()
        for name in names.sorted() where name.hasSuffix(".json") && !name.hasPrefix(".") {
            let path = (directory as NSString).appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: path) else {
                throw FareScheduleError(file: path, field: nil, message: "cannot read the file")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw FareScheduleError(file: path, field: nil, message: "is not UTF-8 text")
            }
            schedules.append(try FareSchedule.parse(text, id: String(name.dropLast(5)), file: path))
        }
        guard !schedules.isEmpty else {
            throw FareScheduleError(file: directory, field: nil, message: "holds no fare schedule (*.json)")
        }
        return try FareScheduleBook(schedules: schedules)
    }

    /// The region ids, sorted.
    public var regions: [String] { Array(Set(schedules.map(\.region))).sorted() }

    /// The taxi class ids of a region (or of every region when nil), sorted.
    public func taxiClasses(region: String? = nil) -> [String] {
        Array(Set(schedules.filter { region == nil || $0.region == region }.map(\.taxiClass))).sorted()
    }

    /// The schedule with this id, if any.
    public func schedule(id: String) -> FareSchedule? { schedules.first { $0.id == id } }

    /// The schedule in force for a trip of `taxiClass` in `region` departing at `departure`
    /// (Unix seconds): the latest one that started at or before the departure.
    public func schedule(region: String, taxiClass: String, at departure: Double) throws(FareLookupError) -> FareSchedule {
        var regionKnown = false, classKnown = false
        var found: FareSchedule?
        for s in schedules where s.region == region {  // sorted by effectiveFrom: the last match wins
            regionKnown = true
            guard s.taxiClass == taxiClass else { continue }
            classKnown = true
            if s.effectiveFrom <= departure { found = s }
        }
        guard regionKnown else { throw .unknownRegion(region, allowed: regions) }
        guard classKnown else { throw .unknownTaxiClass(taxiClass, region: region, allowed: taxiClasses(region: region)) }
        guard let found else {
            throw .beforeOldestSchedule(region: region, taxiClass: taxiClass, departure: departure,
                                        covered: schedules.filter { $0.region == region && $0.taxiClass == taxiClass }
                                            .map { "\($0.id) from \(SeoulTime.format($0.effectiveFrom))" })
        }
        return found
    }
}
