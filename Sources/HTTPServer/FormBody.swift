extension HTTPRequest {
    /// The body read as `application/x-www-form-urlencoded` fields (`a=1&b=2`), decoded as
    /// strictly as the query (a malformed escape is a 400 `invalid_url`).
    public func formFields() throws(HTTPError) -> [(name: String, value: String)] {
        try URLDecoding.split(target: "?" + String(decoding: body, as: UTF8.self)).query
    }
}
