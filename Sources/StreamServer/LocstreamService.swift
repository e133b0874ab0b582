import Observability
import WebSocketTransport

/// What the server does with each upgrade, connection and HTTP request: the routes.
struct LocstreamService: WebSocketServerDelegate {
    let settings: ServerSettings
    let metrics: ServerMetrics
    let readiness: Readiness
    let logger: Logger

    func decideUpgrade(_ request: UpgradeRequest) -> UpgradeDecision {
        switch request.path {
        case EchoEndpoint.path where settings.enableEcho: .accept
        default: .reject(status: 404)
        }
    }

    func serve(_ connection: WebSocketConnection) async {
        metrics.connectionsOpened.increment()
        metrics.connections.add(1)
        defer { metrics.connections.add(-1) }
        logger.debug(
            "connection opened",
            ["conn": connection.id, "peer": connection.request.remoteAddress, "path": connection.request.path])
        if connection.request.path == EchoEndpoint.path {
            await EchoEndpoint.serve(connection, metrics: metrics)
        }
        logger.debug("connection closed", ["conn": connection.id, "peer_close": connection.peerClose?.code ?? 0])
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        switch (request.method, request.path) {
        case ("GET", "/healthz"):
            return .json(200, #"{"status":"ok"}"#)
        case ("GET", "/readyz"):
            return readiness.isReady
                ? .json(200, #"{"status":"ready"}"#) : .json(503, "{\"status\":\"\(readiness.reason)\"}")
        case ("GET", "/metrics"):
            return .text(200, metrics.registry.render(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        case (_, "/healthz"), (_, "/readyz"), (_, "/metrics"):
            return .json(405, #"{"code":"method_not_allowed","message":"use GET"}"#)
        default:
            return .json(404, #"{"code":"not_found","message":"no such path"}"#)
        }
    }
}
