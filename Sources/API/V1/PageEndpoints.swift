import Foundation
import HTTPServer

/// A folder of page files served read-only: only plain names (no `/`, no leading dot) with a
/// known extension, read from disk at each request, so a missing folder is reported when it
/// is asked for and the rest of the API is unaffected.
struct PageFolder: Sendable {
    let path: String
    /// What to tell the user when the folder is missing.
    let missingHint: String
    let code: String

    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "png": "image/png", "svg": "image/svg+xml",
        "json": "application/json", "map": "application/json",
    ]

    /// The file `name` (under `sub`, one plain folder name, when given) as a response.
    func serve(_ name: String, sub: String? = nil, cacheSeconds: Int) throws(HTTPError) -> HTTPResponse {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw HTTPError(status: 503, code: code, message: "\(path) is missing: \(missingHint); the API under /v1 works without it")
        }
        let ext = name.split(separator: ".").last.map(String.init) ?? ""
        guard Self.isPlainName(name), sub.map(Self.isPlainName) ?? true, let type = Self.contentTypes[ext] else {
            throw HTTPError.notFound("file_not_found", "no file '\(name.prefix(80))' here")
        }
        var full = path
        if let sub { full = (full as NSString).appendingPathComponent(sub) }
        full = (full as NSString).appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: full) else {
            throw HTTPError.notFound("file_not_found", "no file '\(name.prefix(80))' in \(path)")
        }
        let cache = cacheSeconds > 0 ? "public, max-age=\(cacheSeconds)" : "no-cache"
        return HTTPResponse(status: 200, headers: [("Content-Type", type), ("Cache-Control", cache)], body: [UInt8](data))
    }

    static func isPlainName(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, first != ".", s.count <= 100 else { return false }
        return s.unicodeScalars.allSatisfy { ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "." || $0 == "-" || $0 == "_" }
    }
}

/// `GET /` and `/map` (the map page), `/web/{file}` (its script and style) and
/// `/leaflet/{file}`, `/leaflet/images/{file}` (Leaflet from Debian's libjs-leaflet).
func registerPageEndpoints(_ router: Router, _ configuration: ServiceConfiguration) {
    let web = PageFolder(path: configuration.webDir, missingHint: "the map page's files are not there (serve from the checkout, or pass --web DIR, the repository's web/ folder)",
                         code: "page_unavailable")
    let leaflet = PageFolder(path: configuration.leafletDir, missingHint: "install Debian's libjs-leaflet (tools/install-deps) or pass --leaflet DIR",
                             code: "leaflet_unavailable")
    let fileParam = ParameterDoc("file", in: "path", required: true, "a file name")

    let pageDoc = OperationDoc("The map page (HTML): search, route, fare and parties over the engine's own road map",
                               responses: [(200, "text/html"), (503, "page_unavailable or leaflet_unavailable: the page's files are missing")],
                               responseSchema: ["type": "string"], responseContentType: "text/html")
    // Any file of the folders, of the kinds `PageFolder.contentTypes` serves.
    let fileTypes = Array(Set(PageFolder.contentTypes.values.map { String($0.prefix { $0 != ";" }) })).sorted()
    for path in ["/", "/map"] {
        router.add("GET", path, pageDoc) { _ in
            // The page is useless without Leaflet: say so instead of a blank map.
            _ = try leaflet.serve("leaflet.js", cacheSeconds: 0)
            return try web.serve("index.html", cacheSeconds: 0)
        }
    }
    router.add("GET", "/web/{file}", OperationDoc("A file of the map page (script, style)", parameters: [fileParam],
                                                  responses: [(200, "the file"), (503, "page_unavailable")],
                                                  responseSchema: ["type": "string"], responseContentTypes: fileTypes)) { req in
        try web.serve(req.pathParameters["file"] ?? "", cacheSeconds: 0)
    }
    router.add("GET", "/leaflet/{file}", OperationDoc("Leaflet's script and style (Debian's libjs-leaflet)", parameters: [fileParam],
                                                      responses: [(200, "the file"), (503, "leaflet_unavailable")],
                                                      responseSchema: ["type": "string"], responseContentTypes: fileTypes)) { req in
        try leaflet.serve(req.pathParameters["file"] ?? "", cacheSeconds: 86_400)
    }
    router.add("GET", "/leaflet/images/{file}", OperationDoc("Leaflet's marker and control images", parameters: [fileParam],
                                                             responses: [(200, "the image"), (503, "leaflet_unavailable")],
                                                             responseSchema: ["type": "string"], responseContentTypes: fileTypes)) { req in
        try leaflet.serve(req.pathParameters["file"] ?? "", sub: "images", cacheSeconds: 86_400)
    }
}
