import CProj
import Geo

extension CoordinateTransformer {
    /// The step-by-step recipe for `worker`'s operation, installed in `worker`, when its answers are
    /// bit-identical to the whole pipeline's on points spread over the areas of use and the globe;
    /// nil (and the pipeline stays in use) otherwise.
    static func verifiedRecipe(for worker: ProjWorker, source: CRSDescriptor, sourceFacts: Proj.CRSFacts,
                               targetFacts: Proj.CRSFacts) -> StepRecipe?
    {
        guard let text = proj_as_proj_string(worker.context, worker.operation, PJ_PROJ_5, nil),
              let recipe = StepRecipe.parse(String(cString: text)),
              let plan = StepwisePlan(recipe, in: worker.context)
        else { return nil }
        var (xs, ys) = samplePoints(source: source, sourceFacts: sourceFacts, targetFacts: targetFacts)
        var px = xs, py = ys
        let count = xs.count
        xs.withUnsafeMutableBufferPointer { bx in
            ys.withUnsafeMutableBufferPointer { by in
                if let x = bx.baseAddress, let y = by.baseAddress {
                    worker.transformWithPipeline(x: x, y: y, stride: 1, count: count)
                }
            }
        }
        px.withUnsafeMutableBufferPointer { bx in
            py.withUnsafeMutableBufferPointer { by in
                if let x = bx.baseAddress, let y = by.baseAddress { plan.transform(x: x, y: y, stride: 1, count: count) }
            }
        }
        func same(_ a: Double, _ b: Double) -> Bool { a.bitPattern == b.bitPattern || (!a.isFinite && !b.isFinite) }
        for i in 0..<count where !same(xs[i], px[i]) || !same(ys[i], py[i]) { return nil }
        worker.plan = plan
        return recipe
    }

    /// Source-CRS points for the check: a 16 × 16 grid over the target's (else the source's, else
    /// South Korea's) area of use, a coarse grid over the globe, and a few out-of-domain values.
    private static func samplePoints(source: CRSDescriptor, sourceFacts: Proj.CRSFacts,
                                     targetFacts: Proj.CRSFacts) -> ([Double], [Double])
    {
        let area = targetFacts.areaOfUse ?? sourceFacts.areaOfUse
            ?? BoundingBox(west: 124.5, south: 33, east: 132, north: 38.7)
        var lon: [Double] = [], lat: [Double] = []
        let east = area.west <= area.east ? area.east : area.east + 360
        for i in 0...15 {
            for j in 0...15 {
                var x = area.west + (east - area.west) * Double(i) / 15
                if x > 180 { x -= 360 }
                lon.append(x)
                lat.append(area.south + (area.north - area.south) * Double(j) / 15)
            }
        }
        for x in Swift.stride(from: -180.0, through: 180, by: 30) {
            for y in Swift.stride(from: -90.0, through: 90, by: 15) {
                lon.append(x)
                lat.append(y)
            }
        }
        if sourceFacts.isGeographic && sourceFacts.isDegrees { return (lon, lat) }
        // Place the lon/lat points in the source CRS through PROJ, plus raw values far off.
        let wgs84 = CRSDescriptor(name: "EPSG:4326", definition: .authority("EPSG:4326"), areaOfUseOverride: nil)
        guard let toSource = try? ProjWorker(source: wgs84, target: source) else { return ([0, 1e7, -1e6], [0, 1e7, 5e6]) }
        let n = lon.count
        lon.withUnsafeMutableBufferPointer { bx in
            lat.withUnsafeMutableBufferPointer { by in
                if let x = bx.baseAddress, let y = by.baseAddress { toSource.transformWithPipeline(x: x, y: y, stride: 1, count: n) }
            }
        }
        var xs: [Double] = [0, 1e7, -1e6], ys: [Double] = [0, 1e7, 5e6]
        for i in 0..<n where lon[i].isFinite && lat[i].isFinite {
            xs.append(lon[i])
            ys.append(lat[i])
        }
        return (xs, ys)
    }
}
