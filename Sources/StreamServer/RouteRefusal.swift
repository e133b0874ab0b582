import LocstreamProtocol
import Observability
import WebSocketTransport

/// A client error (4xx) that one of our HTTP routes answered: counted in
/// `http_route_refusals_total{status}` and logged through the logger's throttled refusal
/// path, with the `code` and `message` of its JSON body, so that a flood of bad requests
/// or bad tokens costs the log a bounded number of lines.
struct RouteRefusal {
    let status: Int
    let code: String
    let message: String

    /// The refusal `response` is, or nil when it is not a client error.
    init?(response: HTTPResponse) {
        guard (400..<500).contains(response.status) else { return nil }
        status = response.status
        let members: [String: JSONValue]
        if case .object(let object)? = try? JSONValue(parsing: response.body) {
            members = object
        } else {
            members = [:]
        }
        if case .string(let code)? = members["code"] { self.code = code } else { code = "" }
        if case .string(let message)? = members["message"] { self.message = message } else { message = "" }
    }

    /// Counts and logs the refusal of `request`.
    func record(_ request: HTTPRequest, metrics: ServerMetrics, logger: Logger) {
        metrics.routeRefusals[String(status)]?.increment()
        logger.refused(
            "http route refused",
            [
                "peer": request.remoteAddress, "method": Self.shown(request.method), "path": Self.shown(request.path),
                "status": status, "code": code, "message": message,
            ])
    }

    /// `text` cut to 128 characters for a log line: paths and methods are the client's.
    static func shown(_ text: String) -> String {
        text.count <= 128 ? text : String(text.prefix(128)) + "…"
    }
}
