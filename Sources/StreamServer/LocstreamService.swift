import LocstreamProtocol
import Observability
import StreamCore
import WebSocketTransport

/// What the server does with each upgrade, connection and HTTP request: the routes.
struct LocstreamService: WebSocketServerDelegate {
    static let streamPath = "/v1/stream"

    let settings: ServerSettings
    let metrics: ServerMetrics
    let readiness: Readiness
    let node: Node
    let connectionNames: ConnectionNames
    /// The static files: the map page, locstream.js, Leaflet and the contract documents.
    let files: [String: StaticAsset]

    private var logger: Logger { node.logger }

    func decideUpgrade(_ request: UpgradeRequest) -> UpgradeDecision {
        if let allowed = settings.allowedOrigins, let origin = request.origin, !allowed.contains(origin) {
            return refuse(request, status: 403, reason: "origin not allowed")
        }
        return switch request.path {
        case Self.streamPath: .accept
        case EchoEndpoint.path where settings.enableEcho: .accept
        default: refuse(request, status: 404, reason: "no WebSocket endpoint at this path")
        }
    }

    /// Counts and logs (throttled) a refused upgrade.
    private func refuse(_ request: UpgradeRequest, status: Int, reason: String) -> UpgradeDecision {
        metrics.routeRefusals[String(status)]?.increment()
        logger.refused(
            "upgrade refused",
            [
                "peer": request.remoteAddress, "path": RouteRefusal.shown(request.path), "status": status,
                "reason": reason,
            ])
        return .reject(status: status)
    }

    func open(_ connection: WebSocketConnection) -> sending (any MessageHandler)? {
        switch opened(connection) {
        case .echo:
            return EchoEndpoint(connection, metrics: metrics)
        case .stream(let session):
            return StreamEndpoint(session: session)
        case .closing:
            return nil
        }
    }

    /// Who serves an open connection.
    private enum Route {
        case echo
        /// A stream session, opened (greeted, and its upgrade token checked).
        case stream(StreamSession)
        /// A stream session that refused its upgrade token and is closing the connection.
        case closing
    }

    /// Counts and logs a new connection, picks its route and opens a stream session.
    private func opened(_ connection: WebSocketConnection) -> Route {
        metrics.connectionsOpened.increment()
        let request = connection.takeRequest()
        let name = connectionNames.name(connection.id)
        logger.info("connection opened", ["conn": name, "peer": request.remoteAddress, "path": request.path])
        guard request.path != EchoEndpoint.path else { return .echo }
        let session = StreamSession(
            connectionID: name, peer: request.remoteAddress,
            sink: ConnectionSink(connection: connection),
            node: node)
        guard
            session.open(
                upgradeToken: Gatekeeper.upgradeToken(authorization: request.authorization, query: request.query))
        else {
            session.close()
            return .closing
        }
        return .stream(session)
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        let response = await route(request)
        RouteRefusal(response: response)?.record(request, metrics: metrics, logger: logger)
        return response
    }

    /// The response of the route `request` names.
    private func route(_ request: HTTPRequest) async -> HTTPResponse {
        let webSockets: Set = settings.enableEcho ? [Self.streamPath, EchoEndpoint.path] : [Self.streamPath]
        if let allowed = RouteMethods.allowed(request.path, webSockets: webSockets, files: files),
            !allowed.contains(request.method)
        {
            return RouteMethods.notAllowed(request.method, allowed: allowed)
        }
        if let asset = files[request.path] {
            return asset.response(to: request)
        }
        switch request.path {
        case "/healthz":
            return .json(200, #"{"status":"ok"}"#)
        case "/readyz":
            return readiness.isReady
                ? .json(200, #"{"status":"ready"}"#) : .json(503, "{\"status\":\"\(readiness.reason)\"}")
        case "/metrics":
            return .text(200, metrics.registry.render(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        case "/v1/locations":
            return await LocationRoutes(node: node).publish(request)
        case Self.devicesPath:
            return await LocationRoutes(node: node).query(request)
        case let path where webSockets.contains(path):
            return RouteMethods.upgradeRequired(path)
        case let path where path.hasPrefix(Self.devicesPrefix):
            return await LocationRoutes(node: node).device(
                String(path.dropFirst(Self.devicesPrefix.count)), request: request)
        default:
            return .json(404, #"{"code":"not_found","message":"no such path"}"#)
        }
    }

    static let devicesPrefix = "/v1/devices/"
    static let devicesPath = "/v1/devices"
}
