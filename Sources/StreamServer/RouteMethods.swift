import WebSocketTransport

/// Which methods each known path answers. A known path asked with another method gets 405
/// with `Allow`, and a WebSocket path asked without an upgrade gets 426, instead of 404.
enum RouteMethods {
    /// The methods `path` answers (`HEAD` wherever `GET`), or nil when no route has the path.
    /// `webSockets` are the paths served as WebSockets only, `files` the static files.
    static func allowed(_ path: String, webSockets: Set<String>, files: [String: StaticAsset]) -> [String]? {
        switch path {
        case "/v1/locations": ["POST"]
        case "/healthz", "/readyz", "/metrics", LocstreamService.devicesPath: ["GET", "HEAD"]
        case _ where webSockets.contains(path) || files[path] != nil:
            ["GET", "HEAD"]
        case _ where path.hasPrefix(LocstreamService.devicesPrefix): ["GET", "HEAD"]
        default: nil
        }
    }

    /// The answer to `method` on a known path that does not take it.
    static func notAllowed(_ method: String, allowed: [String]) -> HTTPResponse {
        var response = HTTPResponse.json(
            405,
            "{\"code\":\"method_not_allowed\",\"message\":\"this path answers \(allowed.joined(separator: ", "))\"}")
        response.headers.append(("allow", allowed.joined(separator: ", ")))
        return response
    }

    /// The answer to a plain request (no upgrade) for the WebSocket endpoint at `path`.
    static func upgradeRequired(_ path: String) -> HTTPResponse {
        var response = HTTPResponse.json(
            426,
            "{\"code\":\"upgrade_required\",\"message\":\"\(path) is a WebSocket endpoint: "
                + "connect with a WebSocket client (Upgrade: websocket)\"}")
        response.headers += [("upgrade", "websocket")]
        return response
    }
}
