// libFuzzer target: any CRS name resolves or is refused with an error value, never a crash;
// a transformer built from two resolved names converts a point or reports it.
import Coordinates

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCRS(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let names = text.split(separator: "\n", maxSplits: 1).map(String.init)
    guard let from = names.first else { return 0 }
    let to = names.count > 1 ? names[1] : "WGS84"
    guard (try? CRSCatalog.resolve(from)) != nil, (try? CRSCatalog.resolve(to)) != nil,
          let t = try? CoordinateTransformer(from: from, to: to) else { return 0 }
    var pts = [XYPoint(x: 127, y: 37.5), XYPoint(x: .nan, y: 1), XYPoint(x: 1e300, y: -1e300)]
    _ = try? t.transform(points: &pts, checkAreaOfUse: true)
    return 0
}
