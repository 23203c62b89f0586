import CProj
import Foundation
import Geo

extension CoordinateTransformer {
    /// Set this environment variable to `1` to make every transformer created afterwards use PROJ
    /// alone (no closed-form kernels), e.g. to compare outputs; `fastKernels: false` (a `package` knob, for tests) does the same
    /// for one transformer.
    public static let projOnlyEnvironmentVariable = "TAXIPOT_COORDINATES_PROJ_ONLY"

    /// False when `TAXIPOT_COORDINATES_PROJ_ONLY=1` is set.
    static var kernelsAllowedByEnvironment: Bool {
        ProcessInfo.processInfo.environment[projOnlyEnvironmentVariable] != "1"
    }

    /// The largest difference from PROJ a kernel may show at creation: 1e-6 target units (a micrometre
    /// for metres), or 1e-11° (about 1 µm) for a target in degrees.
    static func kernelTolerance(targetFacts: Proj.CRSFacts) -> Double? {
        if targetFacts.isGeographic { return targetFacts.isDegrees ? 1e-11 : nil }
        return 1e-6
    }

    /// The closed-form kernel recipe for `worker`'s operation, when one exists and agrees with PROJ
    /// (`worker`'s plain answer, before any kernel is installed) within `kernelTolerance` on a grid
    /// and on pseudo-random points over the regional area of use plus 1° on each side. Its box is
    /// that region in source coordinates; nil (PROJ stays in use) otherwise.
    static func verifiedKernel(for worker: ProjWorker, source: CRSDescriptor, sourceFacts: Proj.CRSFacts,
                               targetFacts: Proj.CRSFacts) -> KernelRecipe?
    {
        guard worker.kernel == nil,
              let tolerance = kernelTolerance(targetFacts: targetFacts),
              let text = proj_as_proj_string(worker.context, worker.operation, PJ_PROJ_5, nil),
              let steps = StepRecipe.parse(String(cString: text)),
              var recipe = KernelRecipe.make(steps, in: worker.context),
              let box = kernelBox(source: source, sourceFacts: sourceFacts, targetFacts: targetFacts)
        else { return nil }
        recipe.box = box

        var xs: [Double] = [], ys: [Double] = []
        let side = 41
        for i in 0..<side {
            for j in 0..<side {
                xs.append(box.minX + (box.maxX - box.minX) * Double(i) / Double(side - 1))
                ys.append(box.minY + (box.maxY - box.minY) * Double(j) / Double(side - 1))
            }
        }
        var random = SplitMix64(seed: 0x5EED_C00D)
        func next() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        for _ in 0..<2000 {
            xs.append(box.minX + (box.maxX - box.minX) * next())
            ys.append(box.minY + (box.maxY - box.minY) * next())
        }
        var kx = xs, ky = ys
        let count = xs.count
        xs.withUnsafeMutableBufferPointer { bx in
            ys.withUnsafeMutableBufferPointer { by in
                if let x = bx.baseAddress, let y = by.baseAddress { worker.transformPlain(x: x, y: y, stride: 1, count: count) }
            }
        }
        let plan = KernelPlan(recipe)
        kx.withUnsafeMutableBufferPointer { bx in
            ky.withUnsafeMutableBufferPointer { by in
                if let x = bx.baseAddress, let y = by.baseAddress { plan.transformUnchecked(x: x, y: y, count: count) }
            }
        }
        var worst = 0.0
        for i in 0..<count {
            // PROJ fails inside the box, or the kernel does: no kernel.
            guard xs[i].isFinite, ys[i].isFinite, kx[i].isFinite, ky[i].isFinite else { return nil }
            worst = max(worst, abs(xs[i] - kx[i]), abs(ys[i] - ky[i]))
        }
        guard worst <= tolerance else { return nil }
        recipe.checkedDifference = worst
        return recipe
    }

    /// The source-coordinate box a kernel is checked over: the regional (not whole-Earth) area of use
    /// of the target, else of the source, else South Korea's (124.5–132°E, 33–38.7°N), widened by 1°
    /// and kept within ±85° latitude, in the source CRS (through PROJ when it is projected). A regional
    /// area is one narrower than 60° of longitude that does not cross the antimeridian.
    private static let southKorea = BoundingBox(west: 124.5, south: 33, east: 132, north: 38.7)

    private static func kernelBox(source: CRSDescriptor, sourceFacts: Proj.CRSFacts, targetFacts: Proj.CRSFacts)
        -> (minX: Double, minY: Double, maxX: Double, maxY: Double)?
    {
        func regional(_ area: BoundingBox?) -> BoundingBox? {
            guard let area, !area.coversWholeEarth, area.west <= area.east, area.east - area.west <= 60 else { return nil }
            return area
        }
        // Neither regional (e.g. WCONGNAMUL, whose rescaled CRS has no area): South Korea's.
        let area = regional(targetFacts.areaOfUse) ?? regional(sourceFacts.areaOfUse) ?? southKorea
        let west = max(-180, area.west - 1), east = min(180, area.east + 1)
        let south = max(-85, area.south - 1), north = min(85, area.north + 1)
        guard west < east, south < north else { return nil }
        if sourceFacts.isGeographic {
            guard sourceFacts.isDegrees else { return nil }
            return (west, south, east, north)
        }
        // A projected source: the region's image in source coordinates, through PROJ.
        let wgs84 = CRSDescriptor(name: "EPSG:4326", definition: .authority("EPSG:4326"), areaOfUseOverride: nil)
        guard let toSource = try? ProjWorker(source: wgs84, target: source) else { return nil }
        var lon: [Double] = [], lat: [Double] = []
        let side = 21
        for i in 0..<side {
            for j in 0..<side {
                lon.append(west + (east - west) * Double(i) / Double(side - 1))
                lat.append(south + (north - south) * Double(j) / Double(side - 1))
            }
        }
        let n = lon.count
        lon.withUnsafeMutableBufferPointer { bx in
            lat.withUnsafeMutableBufferPointer { by in
                if let x = bx.baseAddress, let y = by.baseAddress { toSource.transformWithPipeline(x: x, y: y, stride: 1, count: n) }
            }
        }
        var box = (minX: Double.infinity, minY: Double.infinity, maxX: -Double.infinity, maxY: -Double.infinity)
        for i in 0..<n {
            guard lon[i].isFinite, lat[i].isFinite else { return nil }
            box = (min(box.minX, lon[i]), min(box.minY, lat[i]), max(box.maxX, lon[i]), max(box.maxY, lat[i]))
        }
        return box
    }
}
