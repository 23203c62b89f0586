extension HTTPRequest {
    /// The body read as `application/x-www-form-urlencoded` fields (`a=1&b=2`), decoded as
    /// strictly as the query (a malformed escape is a 400 `invalid_url`).
    public func formFields() throws(HTTPError) -> [(name: String, value: String)] {
        try URLDecoding.split(target: "?" + String(decoding: body, as: UTF8.self)).query
    }

    /// This request with its form body's fields (`formFields()`) added after its query's, for
    /// an operation that takes its options either way (POST for options that outgrow a URL).
    public func withFormFieldsInQuery() throws(HTTPError) -> HTTPRequest {
        var merged = HTTPRequest(method: method, path: path, query: query + (try formFields()), headers: headers, body: body)
        merged.pathParameters = pathParameters
        return merged
    }
}
