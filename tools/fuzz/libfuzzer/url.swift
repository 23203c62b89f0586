// libFuzzer target: request-target decoding never crashes and yields valid, NUL-free text.
@testable import HTTPServer

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzURL(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let (path, query) = try? URLDecoding.split(target: text) {
        precondition(!path.utf8.contains(0))
        for q in query { precondition(!q.name.utf8.contains(0) && !q.value.utf8.contains(0)) }
    }
    return 0
}
