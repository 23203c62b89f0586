import FareEstimation
import Fares
import Foundation
import Geo
import Routing

extension RideQuoter {
    /// The solo metered fare (won, tolls excluded) of every cell of `table`, row by row, nil where
    /// the table has no route: for each pair, what `quote` charges one rider going from the
    /// source straight to the destination at `request.departAt` (the same route, schedule of the
    /// source's region and class, and meter), on all cores.
    ///
    /// Errors: a source in no fare region or without a schedule at the departure names it
    /// (`RequestField.source(i)`); an unknown `taxiClass` is `.schedule(.unknownTaxiClass)`.
    public func soloFares(_ request: TableRequest, table: RouteTable, taxiClass: String = FareRequest.defaultTaxiClass)
        throws(FareRequestError) -> [Int?]
    {
        let destinations = request.destinations ?? request.sources
        guard table.sourceCount == request.sources.count, table.destinationCount == destinations.count else {
            throw .invalid(.table, reason: "does not belong to the request (\(table.sourceCount) × \(table.destinationCount) cells)")
        }
        // One region and schedule per source, as a quote from it would pick them.
        var meters: [RideMeter] = []
        for (i, p) in request.sources.enumerated() {
            meters.append(try rideMeter(at: p, field: .source(i), taxiClass: taxiClass, departure: request.departAt))
        }
        let columns = table.destinationCount
        let perSource = meters
        let cells = FareCells(count: table.sourceCount * columns)
        let next = RowCounter()
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, table.sourceCount, (table.sourceCount * columns) / 16))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while let i = next.take(below: table.sourceCount) {
                let meter = perSource[i]
                for j in 0..<columns where table.isReachable(source: i, destination: j) {
                    let route: RouteResult
                    do {
                        route = try routes.route(RouteRequest(from: request.sources[i], to: destinations[j], departAt: request.departAt,
                                                              maxSnapMeters: request.maxSnapMeters))
                    } catch { continue }
                    if let metered = try? meter.run(.route(route), departure: request.departAt) { cells.set(i * columns + j, metered.fare.totalKrw) }
                }
            }
        }
        return cells.values()
    }
}

/// Fares being filled by several threads (each cell written once, by one thread).
private final class FareCells: @unchecked Sendable {
    private let buffer: UnsafeMutablePointer<Int>
    private let count: Int

    init(count: Int) {
        self.count = count
        buffer = .allocate(capacity: max(1, count))
        buffer.initialize(repeating: -1, count: max(1, count))
    }

    deinit { buffer.deallocate() }

    func set(_ k: Int, _ krw: Int) { buffer[k] = krw }

    func values() -> [Int?] { (0..<count).map { buffer[$0] < 0 ? nil : buffer[$0] } }
}
