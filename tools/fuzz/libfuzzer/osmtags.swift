// libFuzzer target: OSM tag values (maxspeed, oneway, access, highway …) never crash the car
// profile, and every accepted speed is finite and positive.
import Routing

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOSMTags(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let v = CarProfile.parseMaxspeed(text) { precondition(v.isFinite && v > 0, "maxspeed \(v) from \(text)") }
    // Split the input into key=value lines and feed them as a way's tags.
    var tags = WayTags()
    for line in text.split(separator: "\n") {
        let kv = line.split(separator: "=", maxSplits: 1)
        guard kv.count == 2 else { continue }
        _ = tags.set(String(kv[0]), String(kv[1]))
    }
    if tags.highway == nil { _ = tags.set("highway", "primary") }
    if let rule = CarProfile.rule(for: tags) {
        precondition(rule.capForwardKmh > 0 && rule.capBackwardKmh > 0, "cap from \(tags)")
    }
    return 0
}
