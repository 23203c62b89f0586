import TaxiPot

/// The repository's schedules and traffic profile, loaded once per test process.
public enum FareData {
    public static let book: FareScheduleBook = {
        do {
            return try FareScheduleBook.load(directory: TestPaths.dataDir.appendingPathComponent("fares").path)
        } catch {
            fatalError("data/fares does not load: \(error)")
        }
    }()

    public static let profile: TrafficProfile = {
        do {
            return try TrafficProfile.load(path: TestPaths.dataDir.appendingPathComponent("traffic/profile.csv").path)
        } catch {
            fatalError("data/traffic/profile.csv does not load: \(error)")
        }
    }()

    public static var estimator: FareEstimator { FareEstimator(book: book, profile: profile) }

    /// A schedule of the book by id (the test fails loudly when it is missing).
    public static func schedule(_ id: String) -> FareSchedule {
        guard let s = book.schedule(id: id) else { fatalError("no schedule \(id) in data/fares") }
        return s
    }

    public static var seoulMid: FareSchedule { schedule("seoul-mid-2023-02-01") }
}
