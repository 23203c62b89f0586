@testable import Coordinates
import XCTest

/// The step-by-step plan must give PROJ's pipeline answers bit for bit.
final class StepwisePlanTests: XCTestCase {
    func testEveryAliasUsesAVerifiedPlanBothWays() throws {
        for alias in CRSCatalog.aliasNames where alias != "WGS84" {
            XCTAssertTrue(try CoordinateTransformer(from: "WGS84", to: alias).usesStepwisePlan, "WGS84 → \(alias)")
            XCTAssertTrue(try CoordinateTransformer(from: alias, to: "WGS84").usesStepwisePlan, "\(alias) → WGS84")
        }
        XCTAssertTrue(try CoordinateTransformer(from: "UTMK", to: "KATEC").usesStepwisePlan)
    }

    func testPlanMatchesThePipelineOnManyPoints() throws {
        var (xs, ys) = SeoulPoints.random(count: 50_000, seed: 99)
        // Some points far away, and one PROJ cannot map to EPSG:3035.
        xs += [-170, 0, 179.9, 10]
        ys += [-52, 0, -89.9, 52]
        for target in ["UTMK", "KATEC", "WEBMERCATOR", "WCONGNAMUL", "EPSG:5174", "EPSG:3035"] {
            // PROJ alone (no closed-form kernels, see FastKernelTests): the plan must be PROJ bit for bit.
            let t = try CoordinateTransformer(from: "WGS84", to: target, fastKernels: false)
            let reference = try ProjWorker(source: t.source, target: t.target)
            var rx = xs, ry = ys, bx = xs, by = ys
            let n = xs.count
            rx.withUnsafeMutableBufferPointer { px in
                ry.withUnsafeMutableBufferPointer { py in
                    reference.transformWithPipeline(x: px.baseAddress!, y: py.baseAddress!, stride: 1, count: n)
                }
            }
            let report = try t.transform(xs: &bx, ys: &by)
            let failed = Set(report.issues.map(\.index))
            for i in 0..<n {
                if failed.contains(i) {
                    XCTAssertFalse(rx[i].isFinite && ry[i].isFinite, "\(target) point \(i) failed only in the plan")
                } else {
                    XCTAssertEqual(bx[i].bitPattern, rx[i].bitPattern, "\(target) x of point \(i)")
                    XCTAssertEqual(by[i].bitPattern, ry[i].bitPattern, "\(target) y of point \(i)")
                }
            }
        }
    }

    func testRecipeParsing() {
        let katec = "+proj=pipeline +step +proj=unitconvert +xy_in=deg +xy_out=rad +step +proj=push +v_3 +step +proj=cart +ellps=WGS84 +step +inv +proj=helmert +x=-115.8 +step +inv +proj=cart +ellps=bessel +step +proj=pop +v_3 +step +proj=axisswap +order=2,1"
        XCTAssertEqual(StepRecipe.parse(katec)?.steps, [
            .unitConvert(definition: "+proj=unitconvert +xy_in=deg +xy_out=rad", inverse: false), .pushZ,
            .proj(definition: "+proj=cart +ellps=WGS84", inverse: false),
            .proj(definition: "+proj=helmert +x=-115.8", inverse: true),
            .proj(definition: "+proj=cart +ellps=bessel", inverse: true), .popZ, .swapXY,
        ])
        // What the plan cannot reproduce exactly is left to the pipeline.
        XCTAssertNil(StepRecipe.parse("+proj=tmerc +lat_0=38"))
        XCTAssertNil(StepRecipe.parse("+proj=pipeline +ellps=GRS80 +step +proj=tmerc"))
        XCTAssertNil(StepRecipe.parse("+proj=pipeline +step +proj=push +v_1 +step +proj=tmerc"))
        XCTAssertNil(StepRecipe.parse("+proj=pipeline +step +proj=tmerc +omit_inv"))
        XCTAssertNil(StepRecipe.parse("+proj=pipeline +step +proj=unitconvert +z_in=m +z_out=ft"))
    }
}
