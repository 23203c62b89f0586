// libFuzzer target: polyline decoding, ISO 8601 parsing and "lon,lat" parsing never crash,
// and accepted values are in range.
import Geo

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGeo(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = Polyline.decode(text)
    if let t = SeoulTime.parse(text) {
        precondition(t.isFinite)
        _ = SeoulTime.format(t)
    }
    if let c = Coordinate.parse(text) { precondition(c.isValid) }
    _ = Coordinate.parseList(text)
    return 0
}
