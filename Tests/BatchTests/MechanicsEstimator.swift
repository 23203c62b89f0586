import CSV
import Foundation
import Geo
import TestSupport
@testable import Batch

/// A deterministic estimator for the runner's mechanics only (CSV, order, memory): the
/// straight-line distance and the row's own values, so a test can tell from an output row
/// which input row produced it. Real estimates are tested on the engine (EndToEndTests).
struct MechanicsEstimator: TripEstimator {
    /// Seconds to sleep per row, drawn per row from its line (jitter that reorders completion).
    var maxDelay: Double = 0
    /// A line on which to stall (to make one chunk much slower than the others).
    var stallLine: Int? = nil
    var stallSeconds: Double = 0

    func estimate(_ trip: TripRequest) -> Result<TripFare, RowError> {
        if maxDelay > 0 {
            // A fixed pseudo-random delay per line.
            let h = UInt64(truncatingIfNeeded: trip.line) &* 0x9E37_79B9_7F4A_7C15
            Thread.sleep(forTimeInterval: maxDelay * Double(h >> 40) / Double(1 << 24))
        }
        if trip.line == stallLine { Thread.sleep(forTimeInterval: stallSeconds) }
        guard case .coordinate(let a) = trip.origin, case .coordinate(let b) = trip.destination else {
            return .failure(RowError(.unknownPlace, "the mechanics estimator knows no places"))
        }
        let d = a.distance(to: b)
        return .success(TripFare(distanceMeters: d, durationSeconds: Double(trip.line), fareKRW: trip.riders,
                                     perPersonKRW: trip.line, nightKRW: Int(trip.departAt), schedule: trip.taxiClass + "/" + trip.split))
    }
}

/// Runs a batch over `text` with `estimator`; returns the output rows (header first) and the summary.
func runBatch(_ text: String, estimator: any TripEstimator = MechanicsEstimator(),
              options: BatchOptions = BatchOptions(workers: 2, defaultDepartAt: 1_700_000_000)) throws -> ([[String]], BatchSummary)
{
    let runner = try BatchRunner(source: MemorySource(text, chunkSize: 4096), options: options)
    let sink = MemorySink()
    let summary = try runner.run(estimator: estimator, sink: sink)
    return (try parseCSV(sink.text), summary)
}
