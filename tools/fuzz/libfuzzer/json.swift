// libFuzzer target: the JSON parser never crashes, and what it accepts round-trips.
import JSON

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let v = try? JSONParser.parse(bytes) {
        let again = try! JSONParser.parse(JSONWriter.bytes(v), maxDepth: 1000)
        precondition(again == v, "JSON round trip changed the value")
    }
    return 0
}
