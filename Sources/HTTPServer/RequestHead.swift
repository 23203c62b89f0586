import CMicroHTTPD
import Foundation

/// The request head of a connection as libmicrohttpd parsed it, with the checks its version in
/// Debian 12 (0.9.75) does not make: framing headers that could be read two ways (request
/// smuggling, RFC 9112 §6.3), and control bytes, NUL above all, anywhere in the head.
///
/// libmicrohttpd 0.9.75 has no client-discipline level (`MHD_OPTION_CLIENT_DISCIPLINE_LVL`
/// came with 1.0), and its `MHD_OPTION_STRICT_FOR_CLIENT` does not help here: at 1 it requires
/// `Host` (and its refusal is sent twice, the bug below) and closes on a space in the target
/// without an answer; the check for a space before a colon only runs at -1. A raw NUL ends the
/// strings it hands on (target, header values; even `MHD_get_connection_values_n` counts the
/// value with `strlen`), so the request arrives silently truncated. What it does keep: every
/// piece of the head stays where it was received, in one buffer, with libmicrohttpd's own NULs
/// written over the separators (the space after the method and before the version, the colon
/// of each header line, CR and LF of each line end). So the head is checked by position: each
/// gap between the pieces `MHD_get_connection_values_n` and the access handler point to must be
/// exactly those NULs; a NUL the client sent leaves more. `MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE`
/// gives the end of the head.
///
/// Not here: a `Content-Length` that is not a number (`-1`) or too large is refused by
/// libmicrohttpd itself before the access handler runs (see `HTTPServer.refuseUnreadableLengths`).
enum RequestHead {
    /// One header line: name and value as libmicrohttpd holds them (pointers into the head).
    private struct Field {
        let name: UnsafePointer<UInt8>
        let nameCount: Int
        let value: UnsafePointer<UInt8>
        let valueCount: Int
    }

    /// The head's headers, lower-cased names (the last of a repeated name wins), or the error
    /// answer for a head that must be refused (with `Connection: close` among its headers):
    /// header lines longer than `maxHeaderBytes` in all (431, whatever the target's limit), or
    /// a header that must be given once given more than once.
    static func read(_ connection: OpaquePointer, method: UnsafePointer<CChar>?, url: UnsafePointer<CChar>?,
                     version: UnsafePointer<CChar>?, targetBytes: Int, maxHeaderBytes: Int) -> Result<[String: String], HTTPError>
    {
        final class Box { var fields: [Field] = [] }
        let box = Box()
        let iterator: MHD_KeyValueIteratorN = { cls, _, key, keySize, value, valueSize in
            guard let cls, let key else { return MHD_Result.YES }
            let box = Unmanaged<Box>.fromOpaque(cls).takeUnretainedValue()
            let name = UnsafeRawPointer(key).assumingMemoryBound(to: UInt8.self)
            let v = value.map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) } ?? name
            box.fields.append(Field(name: name, nameCount: keySize, value: v, valueCount: value == nil ? 0 : valueSize))
            return MHD_Result.YES
        }
        _ = MHD_get_connection_values_n(connection, MHD_ValueKind.HEADER_KIND, iterator, Unmanaged.passUnretained(box).toOpaque())
        if let error = check(connection, method: method, url: url, version: version, targetBytes: targetBytes,
                             maxHeaderBytes: maxHeaderBytes, fields: box.fields) {
            return .failure(error)
        }
        var headers: [String: String] = [:]
        headers.reserveCapacity(box.fields.count)
        var contentLengths = 0, encodings = 0
        /// Headers that must come at most once: their names as written in messages, by lower-cased name.
        let once = ["authorization": "Authorization", "host": "Host", "idempotency-key": "Idempotency-Key"]
        var seen: Set<String> = []
        for f in box.fields {
            let name = String(decoding: UnsafeBufferPointer(start: f.name, count: f.nameCount), as: UTF8.self).lowercased()
            let value = String(decoding: UnsafeBufferPointer(start: f.value, count: f.valueCount), as: UTF8.self)
            switch name {
            case "content-length": contentLengths += 1
            case "transfer-encoding": encodings += 1
            default: break
            }
            if let written = once[name], !seen.insert(name).inserted {
                return .failure(refusal(400, "repeated_header", "the request has more than one \(written) header"))
            }
            headers[name] = value
        }
        if contentLengths > 1 {
            return .failure(refusal(400, "ambiguous_length", "the request has more than one Content-Length header"))
        }
        if encodings > 0 {
            if contentLengths > 0 {
                return .failure(refusal(400, "ambiguous_length", "the request has both Content-Length and Transfer-Encoding"))
            }
            let coding = headers["transfer-encoding"]!.trimmingCharacters(in: .whitespaces).lowercased()
            if encodings > 1 || coding != "chunked" {
                return .failure(refusal(501, "unsupported_transfer_encoding",
                    "the only transfer coding accepted is a single 'chunked', got '\(escaped(headers["transfer-encoding"]!))'"))
            }
        }
        return .success(headers)
    }

    /// A refusal that also closes the connection (what follows it cannot be framed safely).
    static func refusal(_ status: Int, _ code: String, _ message: String) -> HTTPError {
        HTTPError(status: status, code: code, message: message, headers: [("Connection", "close")])
    }

    private static func malformed(_ what: String) -> HTTPError {
        refusal(400, "malformed_request", "the request \(what)")
    }

    /// At most 40 bytes of `s`, control characters shown as `\u{..}`.
    static func escaped(_ s: String) -> String {
        var out = ""
        for u in s.unicodeScalars.prefix(40) {
            out += u.value < 0x20 || u.value == 0x7f ? "\\u{\(String(u.value, radix: 16))}" : String(u)
        }
        return out
    }

    /// A token character (RFC 9110 §5.6.2): what a method and a header name are made of.
    @inline(__always)
    private static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): return true
        default: return false
        }
    }

    /// A control byte other than horizontal tab (not allowed in a header value).
    @inline(__always)
    private static func isControlByte(_ b: UInt8) -> Bool { (b < 0x20 && b != 0x09) || b == 0x7f }

    /// The number of bytes from `from` to `to` when all are NUL, else nil.
    private static func nulRun(_ from: UnsafePointer<UInt8>, _ to: UnsafePointer<UInt8>) -> Int? {
        guard to >= from, to - from <= 8 else { return nil }
        var p = from
        while p < to {
            guard p.pointee == 0 else { return nil }
            p += 1
        }
        return to - from
    }

    /// The error for a head that must be refused, or nil. See the type's documentation.
    private static func check(_ connection: OpaquePointer, method: UnsafePointer<CChar>?, url: UnsafePointer<CChar>?,
                              version: UnsafePointer<CChar>?, targetBytes: Int, maxHeaderBytes: Int, fields: [Field]) -> HTTPError?
    {
        guard let method, let url, let version, version.pointee != 0 else { return malformed("line is incomplete") }
        let m = UnsafeRawPointer(method).assumingMemoryBound(to: UInt8.self)
        let u = UnsafeRawPointer(url).assumingMemoryBound(to: UInt8.self)
        let v = UnsafeRawPointer(version).assumingMemoryBound(to: UInt8.self)
        let headSize = taxipot_mhd_request_head_size(connection)
        guard headSize > 0 else { return malformed("head could not be measured") }
        let headEnd = m + headSize
        guard m < u, u < v, v < headEnd else { return malformed("line is malformed") }
        // The header lines (after the request line), their own limit whatever the target's.
        let headerBytes = headEnd - (v + strlen(version))
        if headerBytes > maxHeaderBytes {
            return refusal(431, "headers_too_large", "the request's header lines are \(headerBytes) bytes; at most \(maxHeaderBytes) are accepted")
        }
        // The method: token bytes, then libmicrohttpd's NUL (the space), then spaces up to the target.
        let methodCount = strlen(method)
        guard methodCount > 0, m + methodCount < u else { return malformed("line is malformed") }
        for i in 0..<methodCount where !isTokenByte(m[i]) { return malformed("method has a byte that is not allowed") }
        var p = m + methodCount + 1
        guard m[methodCount] == 0 else { return malformed("line is malformed") }
        while p < u {
            guard p.pointee == UInt8(ascii: " ") else { return malformed("method contains a control character") }
            p += 1
        }
        // The target: it ends at the NUL before the version; a NUL inside it ended the copy early.
        guard v - u - 1 == targetBytes else { return malformed("target contains a NUL character") }
        // The version, then each header line: the gap before each must be line-end NULs only,
        // and all line ends alike (CRLF: two NULs, LF: one).
        p = v + strlen(version)
        var lineEnd = 0
        for f in fields {
            guard let gap = nulRun(p, f.name), gap == 1 || gap == 2, lineEnd == 0 || gap == lineEnd else {
                return malformed(p == v + strlen(version) ? "line contains a control character" : "header value contains a control character")
            }
            lineEnd = gap
            guard f.nameCount > 0, f.name + f.nameCount < f.value || (f.valueCount == 0 && f.name + f.nameCount <= f.value) else {
                return malformed("header line is malformed")
            }
            for i in 0..<f.nameCount where !isTokenByte(f.name[i]) {
                return malformed("header name '\(escaped(String(decoding: UnsafeBufferPointer(start: f.name, count: f.nameCount), as: UTF8.self)))' has a byte that is not allowed (a space before the colon?)")
            }
            guard f.name[f.nameCount] == 0 else { return malformed("header line is malformed") }
            var q = f.name + f.nameCount + 1
            while q < f.value {
                guard q.pointee == UInt8(ascii: " ") || q.pointee == UInt8(ascii: "\t") else { return malformed("header line is malformed") }
                q += 1
            }
            for i in 0..<f.valueCount where isControlByte(f.value[i]) {
                return malformed("header value contains a control character")
            }
            p = f.value + f.valueCount
        }
        guard let gap = nulRun(p, headEnd), gap == 2 || gap == 4, lineEnd == 0 || gap == 2 * lineEnd else {
            return malformed(fields.isEmpty ? "line contains a control character" : "header value contains a control character")
        }
        return nil
    }
}
