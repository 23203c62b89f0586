import Dispatch
import Foundation
import Geo

/// Raw buffer addresses shared by the parts of one batch; each part touches only its own range.
private struct BatchBuffers: @unchecked Sendable {
    let x: UnsafeMutablePointer<Double>
    let y: UnsafeMutablePointer<Double>
    let stride: Int
    let issues: UnsafeMutableBufferPointer<[PointIssue]>
    let errors: UnsafeMutableBufferPointer<CoordinateError?>
}

extension CoordinateTransformer {
    /// Batches at least this large are split across cores.
    public static let parallelThreshold = 16_384

    /// The number of cores a batch is split across.
    public static let coreCount = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// The batch engine behind every public call: validate, transform (in parallel parts when
    /// large), mark failures, and optionally place inputs in the target's area of use.
    func run(x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>, stride: Int, count: Int,
             checkAreaOfUse: Bool) throws(CoordinateError) -> BatchReport
    {
        var report = BatchReport()
        guard count > 0 else { return report }
        let area = checkAreaOfUse ? targetAreaOfUse.flatMap { $0.coversWholeEarth ? nil : $0 } : nil
        if let area, sourceIsGeographic {
            report.outsideAreaOfUse = Self.indicesOutside(area, x: x, y: y, stride: stride, count: count)
        } else if let area, !targetIsGeographic {
            report.outsideAreaOfUse = lonLatOfSource.outside(area, of: self, x: x, y: y, stride: stride, count: count)
        }

        // More parts than cores: concurrentPerform hands them out as threads free up, which evens out
        // cores that other work slows down.
        let parts = count >= Self.parallelThreshold ? min(Self.coreCount * 4, count / (Self.parallelThreshold / 2)) : 1
        if parts <= 1 {
            report.issues = try runPart(x: x, y: y, stride: stride, range: 0..<count)
        } else {
            let issues = UnsafeMutableBufferPointer<[PointIssue]>.allocate(capacity: parts)
            issues.initialize(repeating: [])
            let errors = UnsafeMutableBufferPointer<CoordinateError?>.allocate(capacity: parts)
            errors.initialize(repeating: nil)
            defer {
                issues.deinitialize().deallocate()
                errors.deinitialize().deallocate()
            }
            let shared = BatchBuffers(x: x, y: y, stride: stride, issues: issues, errors: errors)
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                let range = (count * part / parts)..<(count * (part + 1) / parts)
                do throws(CoordinateError) {
                    shared.issues[part] = try self.runPart(x: shared.x, y: shared.y, stride: shared.stride, range: range)
                } catch {
                    shared.errors[part] = error
                }
            }
            if let failure = errors.lazy.compactMap({ $0 }).first { throw failure }
            report.issues = issues.flatMap { $0 }
        }

        if let area, !sourceIsGeographic, targetIsGeographic {
            report.outsideAreaOfUse = Self.indicesOutside(area, x: x, y: y, stride: stride, count: count)
        }
        return report
    }

    /// Validates, transforms and checks one contiguous range of a batch on the calling thread.
    private func runPart(x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>, stride: Int,
                         range: Range<Int>) throws(CoordinateError) -> [PointIssue]
    {
        var invalid: [PointIssue] = []
        if !allValid(x: x, y: y, stride: stride, range: range) {
            for i in range {
                if let reason = inputProblem(x: x[i * stride], y: y[i * stride]) {
                    invalid.append(PointIssue(index: i, kind: .invalidInput(reason)))
                }
            }
        }
        let px = x + range.lowerBound * stride, py = y + range.lowerBound * stride
        if let kernelPlans {
            // The kernels inside their box; a PROJ worker only for the points outside it.
            var failure: CoordinateError? = nil
            try kernelPlans.withPlan { plan in
                plan.transform(x: px, y: py, stride: stride, count: range.count) { fx, fy, n in
                    do throws(CoordinateError) {
                        try pool.withWorker { $0.transformWithPROJ(x: fx, y: fy, stride: 1, count: n) }
                    } catch {
                        failure = error
                    }
                }
            }
            if let failure { throw failure }
        } else {
            try pool.withWorker { worker in worker.transform(x: px, y: py, stride: stride, count: range.count) }
        }
        // Merge the invalid inputs with the points PROJ failed on; both become NaN.
        if invalid.isEmpty, allFinite(x: x, y: y, stride: stride, range: range) { return [] }
        var issues: [PointIssue] = []
        issues.reserveCapacity(invalid.count)
        var next = 0
        for i in range {
            let o = i * stride
            if next < invalid.count, invalid[next].index == i {
                issues.append(invalid[next])
                next += 1
            } else if x[o].isFinite && y[o].isFinite {
                continue
            } else {
                issues.append(PointIssue(index: i, kind: .transformFailed))
            }
            x[o] = .nan
            y[o] = .nan
        }
        return issues
    }

    /// True when every point of `range` is finite and, for degrees, within ±180 / ±90: one pass
    /// without branches (`inputProblem` then has nothing to say about any of them).
    private func allValid(x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>, stride: Int,
                          range: Range<Int>) -> Bool
    {
        let (maxX, maxY) = sourceIsDegrees ? (180.0, 90.0) : (Double.greatestFiniteMagnitude, .greatestFiniteMagnitude)
        var bad: UInt8 = 0
        for i in range {
            // NaN fails every comparison; infinities exceed the largest finite magnitude.
            bad |= (abs(x[i * stride]) <= maxX ? 0 : 1) | (abs(y[i * stride]) <= maxY ? 0 : 1)
        }
        return bad == 0
    }

    /// True when every point of `range` is finite.
    private func allFinite(x: UnsafeMutablePointer<Double>, y: UnsafeMutablePointer<Double>, stride: Int,
                           range: Range<Int>) -> Bool
    {
        var bad: UInt8 = 0
        for i in range { bad |= (x[i * stride].isFinite ? 0 : 1) | (y[i * stride].isFinite ? 0 : 1) }
        return bad == 0
    }

    /// Why an input point is not a position in the source CRS, or nil when it is one.
    func inputProblem(x: Double, y: Double) -> String? {
        if !x.isFinite { return x.isNaN ? "x is NaN" : "x is infinite" }
        if !y.isFinite { return y.isNaN ? "y is NaN" : "y is infinite" }
        if sourceIsDegrees {
            if abs(y) > 90 { return "latitude \(y) is beyond ±90" }
            if abs(x) > 180 { return "longitude \(x) is beyond ±180" }
        }
        return nil
    }

    /// Indices of the finite lon/lat points outside `area`.
    static func indicesOutside(_ area: BoundingBox, x: UnsafePointer<Double>, y: UnsafePointer<Double>,
                               stride: Int, count: Int) -> [Int]
    {
        var out: [Int] = []
        for i in 0..<count {
            let lon = x[i * stride], lat = y[i * stride]
            if lon.isFinite, lat.isFinite, !area.containsWrapping(lon: lon, lat: lat) { out.append(i) }
        }
        return out
    }
}

extension BoundingBox {
    /// True when the box spans the whole Earth (nothing is ever outside it).
    var coversWholeEarth: Bool { west <= -180 && east >= 180 && south <= -90 && north >= 90 }

    /// Contains, where `west > east` means the box crosses the antimeridian.
    func containsWrapping(lon: Double, lat: Double) -> Bool {
        guard lat >= south, lat <= north else { return false }
        return west <= east ? (lon >= west && lon <= east) : (lon >= west || lon <= east)
    }
}

/// The source → WGS84 transformer of a projected-source transformer, made on first need.
final class LazyTransformer: @unchecked Sendable {
    private let lock = NSLock()
    private var made: CoordinateTransformer?
    private var failed = false

    /// Indices of the source points (projected) whose WGS84 position lies outside `area`;
    /// empty when the source CRS cannot be placed in WGS84.
    func outside(_ area: BoundingBox, of owner: CoordinateTransformer, x: UnsafePointer<Double>, y: UnsafePointer<Double>,
                 stride: Int, count: Int) -> [Int]
    {
        guard let toLonLat = transformer(for: owner) else { return [] }
        var lon = [Double](repeating: 0, count: count)
        var lat = [Double](repeating: 0, count: count)
        for i in 0..<count {
            lon[i] = x[i * stride]
            lat[i] = y[i * stride]
        }
        guard (try? toLonLat.transform(xs: &lon, ys: &lat)) != nil else { return [] }
        return lon.withUnsafeBufferPointer { lb in
            lat.withUnsafeBufferPointer { tb in
                guard let lx = lb.baseAddress, let ly = tb.baseAddress else { return [] }
                return CoordinateTransformer.indicesOutside(area, x: lx, y: ly, stride: 1, count: count)
            }
        }
    }

    private func transformer(for owner: CoordinateTransformer) -> CoordinateTransformer? {
        lock.lock()
        defer { lock.unlock() }
        if let made { return made }
        if failed { return nil }
        let wgs84 = CRSDescriptor(name: "EPSG:4326", definition: .authority("EPSG:4326"), areaOfUseOverride: nil)
        made = try? CoordinateTransformer(source: owner.source, target: wgs84)
        failed = made == nil
        return made
    }
}
