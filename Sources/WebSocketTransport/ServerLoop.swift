import CWebsockets
import Foundation
import Locking
import Observability

/// Requests other threads send to a server's service thread.
enum ServerCommand: Sendable {
    /// Refuse new upgrades and close every WebSocket with `close`.
    case drain(CloseRequest)
}

/// The server's service-thread side: creates the lws context and answers every
/// callback. Everything here runs on the one service thread.
final class ServerLoop: ServiceLoop {
    private let configuration: ServerConfiguration
    private let delegate: any WebSocketServerDelegate
    private let mailbox: LoopMailbox<ServerCommand>
    private let openSockets: Locked<Int>
    private let drained: OneShot<Void>
    private let logger: Logger
    private let writer: CorkedWriter
    private let cMemory = ContextMemory()
    /// The libev loop lws runs on with `--event-loop libev`; freed after the context.
    private(set) var libev: LibevLoop?
    private var sockets: [ConnectionID: LiveSocket] = [:]
    private var socketsPerAddress: [String: Int] = [:]
    private var exchanges: [ConnectionID: HTTPExchange] = [:]
    private var nextID: UInt64 = 1
    private var draining: CloseRequest?

    init(
        configuration: ServerConfiguration, delegate: any WebSocketServerDelegate,
        mailbox: LoopMailbox<ServerCommand>, openSockets: Locked<Int>, drained: OneShot<Void>
    ) {
        self.configuration = configuration
        self.delegate = delegate
        self.mailbox = mailbox
        self.openSockets = openSockets
        self.drained = drained
        logger = configuration.logger
        writer = CorkedWriter(capacity: configuration.writeBatchBytes + 64 * FrameEncoder.maxHeaderCount)
    }

    func createContext() -> Result<(context: OpaquePointer, port: Int), TransportError> {
        LibwebsocketsLog.route(to: logger)
        var info = lws_context_creation_info()
        info.port = Int32(configuration.port)
        info.iface = configuration.host == "0.0.0.0" ? nil : cMemory.string(configuration.host)
        info.vhost_name = cMemory.string("locstream")
        info.protocols = cMemory.protocols(name: configuration.subprotocol, callback: serverCallback)
        info.extensions = configuration.deflate ? cMemory.deflateExtensions() : nil
        info.retry_and_idle_policy = cMemory.idlePolicy(seconds: configuration.idleTimeoutSeconds)
        info.options = locstream_server_options(configuration.usesTLS ? 1 : 0)
        info.user = Unmanaged.passUnretained(self).toOpaque()
        info.alpn = cMemory.string("http/1.1")
        if configuration.eventLoop == .libev {
            guard let libev = LibevLoop() else {
                return .failure(.contextCreationFailed("libev cannot create an epoll loop"))
            }
            self.libev = libev
            libev.lend(to: &info)
        }
        if configuration.usesTLS {
            info.ssl_cert_filepath = cMemory.string(configuration.tlsCertificatePath ?? "")
            info.ssl_private_key_filepath = cMemory.string(configuration.tlsKeyPath ?? "")
        }
        guard let context = lws_create_context(&info) else {
            let causes =
                libev == nil
                ? "port in use, or unreadable TLS files?"
                : "port in use, unreadable TLS files, or no libwebsockets-evlib-ev?"
            return .failure(
                .contextCreationFailed("cannot listen on \(configuration.host):\(configuration.port) (\(causes))"))
        }
        guard let vhost = lws_get_vhost_by_name(context, "locstream") else {
            lws_context_destroy(context)
            return .failure(.contextCreationFailed("no vhost"))
        }
        return .success((context, Int(lws_get_vhost_listen_port(vhost))))
    }

    /// Answers one lws callback.
    func handle(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Int32 {
        let id = ConnectionID(opaque: lws_get_opaque_user_data(wsi))
        switch reason {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            serviceMailbox()
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            return filterUpgrade(wsi)
        case LWS_CALLBACK_ESTABLISHED:
            open(wsi)
        case LWS_CALLBACK_RECEIVE:
            guard let id, let socket = sockets[id] else { return -1 }
            if let close = socket.receive(input, length) {
                logger.info("closing connection", ["conn": id, "code": close.code, "reason": close.reason])
                return -1
            }
        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let id, let socket = sockets[id] else { return 0 }
            return write(socket)
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            if let id { sockets[id]?.recordPeerClose(input, length) }
        case LWS_CALLBACK_CLOSED:
            if let id { closed(id) }
        case LWS_CALLBACK_HTTP:
            return startExchange(
                wsi, path: input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "/")
        case LWS_CALLBACK_HTTP_BODY:
            if let id, let input { exchanges[id]?.appendBody(UnsafeRawBufferPointer(start: input, count: length)) }
        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            if let id, let exchange = exchanges[id] { dispatch(exchange, id: id) }
        case LWS_CALLBACK_HTTP_WRITEABLE:
            guard let id, let exchange = exchanges[id] else { return 0 }
            return writeResponse(exchange, id: id)
        case LWS_CALLBACK_CLOSED_HTTP:
            if let id { exchanges[id] = nil }
        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
        return 0
    }

    // MARK: Mailbox

    private func serviceMailbox() {
        let (ids, commands) = mailbox.drain()
        for command in commands {
            switch command {
            case .drain(let close):
                draining = close
                for socket in sockets.values { socket.channel.close(close) }
                if sockets.isEmpty { drained.fulfil(()) }
            }
        }
        for id in ids {
            if let socket = sockets[id] {
                socket.serviceRequested()
            } else if let exchange = exchanges[id] {
                lws_callback_on_writable(exchange.wsi)
            }
        }
    }

    // MARK: WebSocket

    private func filterUpgrade(_ wsi: OpaquePointer) -> Int32 {
        let request = WSIHeaders.upgradeRequest(wsi)
        let decision = admission(for: request) ?? delegate.decideUpgrade(request)
        guard case .reject(let status) = decision else { return 0 }
        _ = lws_return_http_status(wsi, UInt32(status), nil)
        return 1
    }

    /// The transport's own limits: no upgrades while draining, and at most
    /// `maxConnections` in all and `maxConnectionsPerAddress` per peer address.
    private func admission(for request: UpgradeRequest) -> UpgradeDecision? {
        let reason: String
        if draining != nil {
            reason = "draining"
        } else if sockets.count >= configuration.maxConnections {
            reason = "max connections"
        } else if socketsPerAddress[request.remoteAddress, default: 0] >= configuration.maxConnectionsPerAddress {
            reason = "max connections per address"
        } else {
            return nil
        }
        logger.warning("upgrade refused", ["peer": request.remoteAddress, "status": 503, "reason": reason])
        return .reject(status: 503)
    }

    private func open(_ wsi: OpaquePointer) {
        let id = takeID()
        lws_set_opaque_user_data(wsi, id.opaque)
        let mailbox = self.mailbox
        let request = WSIHeaders.upgradeRequest(wsi)
        let channel = ConnectionChannel(id: id, request: request, policy: configuration.slowConsumer) {
            mailbox.post($0)
        }
        let socket = LiveSocket(
            wsi: wsi, channel: channel, maxMessageBytes: configuration.maxMessageBytes,
            remoteAddress: request.remoteAddress)
        sockets[id] = socket
        socketsPerAddress[request.remoteAddress, default: 0] += 1
        openSockets.withLock { $0 += 1 }
        let connection = WebSocketConnection(channel: channel)
        let delegate = self.delegate
        socket.task = Task {
            await delegate.serve(connection)
            channel.close(CloseRequest(code: 1000))
        }
    }

    private func write(_ socket: LiveSocket) -> Int32 {
        let budget = configuration.deflate ? 0 : configuration.writeBatchBytes
        let (result, written) = socket.writeNext(with: writer, byteBudget: budget, corked: !configuration.deflate)
        if !written.isEmpty {
            configuration.observer?.batchWritten(
                frames: written.count, bytes: written.reduce(0) { $0 + FrameEncoder.wireCount(of: $1) })
        }
        return result
    }

    private func closed(_ id: ConnectionID) {
        guard let socket = sockets.removeValue(forKey: id) else { return }
        socket.closed()
        configuration.observer?.connectionClosed(id: id, remoteAddress: socket.remoteAddress, code: socket.closeCode)
        let remaining = socketsPerAddress[socket.remoteAddress, default: 1] - 1
        socketsPerAddress[socket.remoteAddress] = remaining > 0 ? remaining : nil
        openSockets.withLock { $0 -= 1 }
        if draining != nil, sockets.isEmpty { drained.fulfil(()) }
    }

    // MARK: HTTP

    private func startExchange(_ wsi: OpaquePointer, path: String) -> Int32 {
        let id = takeID()
        lws_set_opaque_user_data(wsi, id.opaque)
        let request = HTTPRequest(
            method: WSIHeaders.method(wsi), path: path, query: WSIHeaders.query(wsi),
            authorization: WSIHeaders.value(wsi, WSI_TOKEN_HTTP_AUTHORIZATION), remoteAddress: WSIHeaders.peer(wsi))
        let exchange = HTTPExchange(wsi: wsi, request: request, bodyLimit: configuration.maxHTTPBodyBytes)
        exchanges[id] = exchange
        let declaredLength = WSIHeaders.value(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH).flatMap { Int($0) } ?? 0
        if declaredLength > configuration.maxHTTPBodyBytes {
            exchange.respondNow(
                .json(
                    413,
                    "{\"code\":\"too_large\",\"message\":\"request body over \(configuration.maxHTTPBodyBytes) bytes\"}"
                ))
            lws_callback_on_writable(wsi)
        } else if declaredLength == 0 {
            dispatch(exchange, id: id)
        }
        return 0
    }

    private func dispatch(_ exchange: HTTPExchange, id: ConnectionID) {
        if exchange.bodyTooLarge {
            exchange.respondNow(.json(413, "{\"code\":\"too_large\",\"message\":\"request body too large\"}"))
            lws_callback_on_writable(exchange.wsi)
            return
        }
        let request = exchange.request
        let slot = exchange.response
        let delegate = self.delegate
        let mailbox = self.mailbox
        Task {
            let response = await delegate.respond(to: request)
            slot.withLock { $0 = response }
            mailbox.post(id)
        }
    }

    private func writeResponse(_ exchange: HTTPExchange, id: ConnectionID) -> Int32 {
        guard let response = exchange.response.withLock({ $0 }) else { return 0 }
        if !exchange.headersSent {
            guard HTTPHeaderWriter.write(response, to: exchange.wsi) else { return -1 }
            exchange.headersSent = true
            if !response.body.isEmpty {
                lws_callback_on_writable(exchange.wsi)
                return 0
            }
        } else if !writer.write(raw: response.body, to: exchange.wsi, as: LWS_WRITE_HTTP_FINAL) {
            return -1
        }
        exchanges[id] = nil
        return lws_http_transaction_completed(exchange.wsi) != 0 ? -1 : 0
    }

    private func takeID() -> ConnectionID {
        defer { nextID += 1 }
        return ConnectionID(nextID)
    }
}

/// The C entry point lws calls for every server event; it forwards to the loop that
/// owns the context.
private func serverCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let loop = lws_context_user(context) else { return 0 }
    return Unmanaged<ServerLoop>.fromOpaque(loop).takeUnretainedValue().handle(wsi, reason, user, input, length)
}
