extension RequestRefusal {
    /// The answer to a refused request: its status, its extra headers, and
    /// `{"code":reason,"message":…}` as the body.
    var response: HTTPResponse {
        let message = message.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        var response = HTTPResponse.json(status, "{\"code\":\"\(reason.rawValue)\",\"message\":\"\(message)\"}")
        response.headers += headers
        return response
    }
}
