import CWebsockets
import Foundation
import Locking
import Observability

/// Requests other threads send to a server's service thread.
enum ServerCommand: Sendable {
    /// Refuse new upgrades and close every WebSocket with `close`.
    case drain(CloseRequest)
    /// Serve a socket the `SocketAcceptor` accepted (a server with several threads).
    case adopt(Int32)
}

/// The server's service-thread side: creates the lws context and answers every
/// callback. Everything here runs on its service thread. A server with several threads
/// has one loop per thread (`shard`); their contexts do not listen, and each serves the
/// sockets the `SocketAcceptor` hands it.
final class ServerLoop: ServiceLoop {
    private let configuration: ServerConfiguration
    private let delegate: any WebSocketServerDelegate
    let mailbox: LoopMailbox<ServerCommand>
    let executor: ServiceExecutor
    private let shard: ServiceShard
    private let counts: ConnectionCounts
    private let drained: OneShot<Void>
    private let logger: Logger
    let writer: CorkedWriter
    private let cMemory = ContextMemory()
    /// The libev loop lws runs on with `--event-loop libev`; freed after the context.
    var libev: LibevLoop?
    private var vhost: OpaquePointer?
    private var sockets: [ConnectionID: LiveSocket] = [:]
    private var exchanges: [ConnectionID: HTTPExchange] = [:]
    /// The peer address of each wsi whose upgrade `counts` holds, until its WSI_DESTROY.
    private var admitted: [OpaquePointer: String] = [:]
    var busyReaders: [ConnectionID] = []
    private var nextID: UInt64
    private var draining: CloseRequest?
    /// The bytes lws keeps for one request head; a head that does not fit is dropped by
    /// lws without an answer, so each header is cut at `tokenLimit` first and answered 431.
    static let headerSpace = 8192
    static let tokenLimit = 4096

    init(
        configuration: ServerConfiguration, delegate: any WebSocketServerDelegate,
        mailbox: LoopMailbox<ServerCommand>, shard: ServiceShard, counts: ConnectionCounts, drained: OneShot<Void>
    ) {
        self.configuration = configuration
        self.delegate = delegate
        self.mailbox = mailbox
        executor = ServiceExecutor(mailbox: mailbox)
        self.shard = shard
        self.counts = counts
        self.drained = drained
        nextID = UInt64(shard.index + 1)
        logger = configuration.logger
        writer = CorkedWriter(capacity: Self.sendLimit(configuration))
    }

    func createContext() -> Result<(context: OpaquePointer, port: Int), TransportError> {
        LibwebsocketsLog.route(to: logger)
        var info = lws_context_creation_info()
        info.port = shard.listens ? Int32(configuration.port) : CONTEXT_PORT_NO_LISTEN_SERVER
        info.iface = configuration.host == "0.0.0.0" ? nil : cMemory.string(configuration.host)
        info.vhost_name = cMemory.string("locstream")
        // The C entry point lws calls for every server event.
        info.protocols = cMemory.protocols(name: configuration.subprotocol, sendLimit: Self.sendLimit(configuration)) {
            ServerLoop.forward($0, $1, $2, $3, $4)
        }
        info.extensions = configuration.deflate ? cMemory.deflateExtensions() : nil
        info.retry_and_idle_policy = cMemory.idlePolicy(seconds: configuration.idleTimeoutSeconds)
        info.options = locstream_server_options(configuration.usesTLS ? 1 : 0)
        info.alpn = cMemory.string("http/1.1")
        info.max_http_header_data = UInt16(Self.headerSpace)
        info.token_limits = cMemory.tokenLimits(UInt16(Self.tokenLimit))
        if let failure = lend(to: &info, eventLoop: configuration.eventLoop) { return .failure(failure) }
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
        self.vhost = vhost
        return .success((context, Int(lws_get_vhost_listen_port(vhost))))
    }

    /// The most bytes one corked write sends: a batch and its frame headers.
    private static func sendLimit(_ configuration: ServerConfiguration) -> Int {
        configuration.writeBatchBytes + 64 * FrameEncoder.maxHeaderCount
    }

    /// Answers one lws callback.
    func handle(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Int32 {
        let id = ConnectionID(opaque: lws_get_opaque_user_data(wsi))
        switch reason {
        case LWS_CALLBACK_RAW_ADOPT:
            return refuseTunnel(wsi)
        case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
            return confirmUpgrade(wsi, upgrade: input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) })
        case LWS_CALLBACK_ESTABLISHED:
            open(wsi)
        case LWS_CALLBACK_RECEIVE:
            guard let id, let socket = sockets[id] else { return -1 }
            if let close = socket.receive(input, length) {
                logger.info("closing connection", ["conn": id, "code": close.code, "reason": close.reason])
                return -1
            }
            noteReceived(on: socket, id: id)
        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let id, let socket = sockets[id] else { return 0 }
            return writeQueued(socket)
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            guard let id, let socket = sockets[id] else { return -1 }
            return socket.peerClosed(input, length) ? 0 : -1
        case LWS_CALLBACK_CLOSED:
            if let id { closed(id) }
        case LWS_CALLBACK_HTTP:
            return startExchange(wsi, existing: id)
        case LWS_CALLBACK_HTTP_BODY:
            if let id, let input { exchanges[id]?.appendBody(UnsafeRawBufferPointer(start: input, count: length)) }
        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            if let id, let exchange = exchanges[id] { answer(exchange, id: id) }
        case LWS_CALLBACK_CLOSED_HTTP:
            if let id { exchanges[id] = nil }
        case LWS_CALLBACK_WSI_DESTROY:
            if let address = admitted.removeValue(forKey: wsi) { counts.closed(from: address) }
        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
        return 0
    }

    func serviceTurnEnded(_ context: OpaquePointer) {
        readAhead(in: context)
    }

    func liveSocket(_ id: ConnectionID) -> LiveSocket? { sockets[id] }

    // MARK: Mailbox

    func perform(_ command: ServerCommand) {
        switch command {
        case .drain(let close):
            draining = close
            for socket in sockets.values { socket.channel.close(close) }
            if sockets.isEmpty { drained.fulfil(()) }
        case .adopt(let descriptor):
            adopt(descriptor)
        }
    }

    /// Hands an accepted socket to lws, which serves it as if it had accepted it (TLS
    /// first, with `--tls-cert`). When lws cannot, it has closed the socket itself.
    private func adopt(_ descriptor: Int32) {
        guard let vhost else {
            // Not reached: the acceptor starts once every context exists.
            close(descriptor)
            return
        }
        if lws_adopt_socket_vhost(vhost, descriptor) == nil {
            logger.warning("accepted socket not served", ["reason": "lws could not adopt it"])
        }
    }

    /// A connection with something for the loop: its queued frames are written at once
    /// when the socket can take them, else on its next WRITEABLE.
    func serviceRequested(for id: ConnectionID) {
        if let socket = sockets[id] {
            // With permessage-deflate lws may still be draining compressed output, which
            // only its WRITEABLE handling finishes: frames wait for WRITEABLE.
            if socket.serviceRequested(mayWriteAtOnce: !configuration.deflate),
                writeQueued(socket, atWriteable: false) < 0
            {
                // A close is due or the write failed: WRITEABLE performs it.
                lws_callback_on_writable(socket.wsi)
            }
        } else if let exchange = exchanges[id] {
            deliver(exchange, id: id)
        }
    }

    // MARK: WebSocket

    /// Writes the next batch of `socket`'s queue: corked up to `writeBatchBytes`, or one
    /// frame with permessage-deflate. Returns what a WRITEABLE callback returns.
    private func writeQueued(_ socket: LiveSocket, atWriteable: Bool = true) -> Int32 {
        let budget = configuration.deflate ? 0 : configuration.writeBatchBytes
        return write(
            socket, byteBudget: budget, corked: !configuration.deflate, observer: configuration.observer,
            atWriteable: atWriteable)
    }

    /// Judges a WebSocket upgrade before lws takes it further: the handshake rules, the
    /// transport's limits, then the application. A refusal is answered here, with a
    /// status and a reason, and the connection closed (-1).
    private func confirmUpgrade(_ wsi: OpaquePointer, upgrade: String?) -> Int32 {
        guard upgrade?.lowercased() == "websocket" else {
            // lws asks only for `websocket` and `h2c`, and would switch to HTTP/2.
            let refusal = RequestRefusal(
                400, .handshake, "only WebSocket upgrades are served; send the request without Upgrade")
            refuse(wsi, refusal, peer: WSIHeaders.peer(wsi), what: "upgrade refused")
            return -1
        }
        let head = WSIHeaders.requestHead(wsi, tokenLimit: Self.tokenLimit)
        let request = WSIHeaders.upgradeRequest(wsi)
        let refusal =
            HandshakeCheck.refusal(
                of: head, subprotocol: configuration.subprotocol, bodyLimit: configuration.maxHTTPBodyBytes)
            ?? decision(for: request, wsi: wsi)
        guard let refusal else { return 0 }
        refuse(wsi, refusal, peer: request.remoteAddress, what: "upgrade refused")
        return -1
    }

    /// The transport's limits and the application's decision, as a refusal or nil.
    private func decision(for request: UpgradeRequest, wsi: OpaquePointer) -> RequestRefusal? {
        guard case .reject(let status) = admission(for: request, wsi: wsi) else { return nil }
        let message =
            switch status {
            case 403: "this origin may not connect"
            case 404: "no WebSocket endpoint at this path"
            case 503: "the server is draining or at its connection limit"
            default: "upgrade refused"
            }
        return RequestRefusal(status, .handshake, message)
    }

    /// No upgrades while draining; then the application's decision; then at most
    /// `maxConnections` in all and `maxConnectionsPerAddress` per peer address. An
    /// upgrade let through is counted here, not once it is established: with several
    /// service threads, the next client's upgrade may be checked on another thread
    /// before this one's ESTABLISHED. `LWS_CALLBACK_WSI_DESTROY`, which every wsi gets,
    /// uncounts it.
    private func admission(for request: UpgradeRequest, wsi: OpaquePointer) -> UpgradeDecision {
        let reason: String
        if draining != nil {
            reason = "draining"
        } else {
            let decision = delegate.decideUpgrade(request)
            guard decision == .accept else { return decision }
            guard
                let limit = counts.admit(
                    from: request.remoteAddress, maxTotal: configuration.maxConnections,
                    maxPerAddress: configuration.maxConnectionsPerAddress)
            else {
                admitted[wsi] = request.remoteAddress
                return .accept
            }
            reason = limit
        }
        logger.refused("upgrade refused", ["peer": request.remoteAddress, "status": 503, "reason": reason])
        return .reject(status: 503)
    }

    private func open(_ wsi: OpaquePointer) {
        let id = takeID()
        lws_set_opaque_user_data(wsi, id.opaque)
        let mailbox = self.mailbox
        let request = WSIHeaders.upgradeRequest(wsi)
        let channel = ConnectionChannel(
            id: id, request: request, policy: configuration.slowConsumer, executor: executor
        ) { mailbox.post($0) }
        let socket = LiveSocket(
            wsi: wsi, channel: channel, maxMessageBytes: configuration.maxMessageBytes,
            remoteAddress: request.remoteAddress)
        sockets[id] = socket
        let connection = WebSocketConnection(channel: channel)
        // Its messages are answered on this thread, in the turn that read them: a publish
        // fans out and a switch queues its ack with no hand-off to the pool and back (on
        // the pool, the two threads' wake-ups cost more than the work at 600k frames/s;
        // deploy/loadtest/results/fanout.md).
        guard let handler = delegate.open(connection) else {
            channel.close(CloseRequest(code: 1000))
            return
        }
        channel.park(handler)
    }

    private func closed(_ id: ConnectionID) {
        guard let socket = sockets.removeValue(forKey: id) else { return }
        socket.closed()
        configuration.observer?.connectionClosed(id: id, remoteAddress: socket.remoteAddress, code: socket.closeCode)
        if draining != nil, sockets.isEmpty { drained.fulfil(()) }
    }

    // MARK: HTTP

    /// A request head is complete: check it, then answer it once its body is in.
    ///
    /// One request is served per connection. Reading pauses while it is answered, and
    /// the connection closes after the answer (`Connection: close`): lws 4.1.6 cannot
    /// frame a pipelined request from its buffer (it reports the finished request
    /// again, and feeds a pipelined request's own head to it as its body).
    private func startExchange(_ wsi: OpaquePointer, existing: ConnectionID?) -> Int32 {
        let peer = WSIHeaders.peer(wsi)
        if let existing, exchanges[existing] != nil {
            let refusal = RequestRefusal(400, .pipelining, "a request arrived before the previous one was answered")
            refuse(wsi, refusal, peer: peer, what: "http request refused")
            return -1
        }
        let id = takeID()
        lws_set_opaque_user_data(wsi, id.opaque)
        let head = WSIHeaders.requestHead(wsi, tokenLimit: Self.tokenLimit)
        switch RequestFraming.bodyLength(of: head, bodyLimit: configuration.maxHTTPBodyBytes) {
        case .failure(let refusal):
            refuse(wsi, refusal, peer: peer, what: "http request refused")
            return -1
        case .success(let length):
            let request = HTTPRequest(
                method: head.method == "HEAD" ? "GET" : head.method, path: head.target, query: WSIHeaders.query(wsi),
                authorization: WSIHeaders.value(wsi, WSI_TOKEN_HTTP_AUTHORIZATION),
                ifNoneMatch: WSIHeaders.value(wsi, WSI_TOKEN_HTTP_IF_NONE_MATCH), remoteAddress: peer)
            let exchange = HTTPExchange(wsi: wsi, request: request, omitsBody: head.method == "HEAD")
            exchanges[id] = exchange
            // With a body, lws delivers it and then BODY_COMPLETION answers.
            if length == 0 { answer(exchange, id: id) }
            return 0
        }
    }

    /// Asks the application for the response, once per exchange, with reading paused.
    private func answer(_ exchange: HTTPExchange, id: ConnectionID) {
        guard let request = exchange.beginAnswering() else { return }
        _ = lws_rx_flow_control(exchange.wsi, 0)
        let slot = exchange.response
        let delegate = self.delegate
        let mailbox = self.mailbox
        Task {
            let response = await delegate.respond(to: request)
            slot.withLock { $0 = response }
            mailbox.post(id)
        }
    }

    /// Writes a finished exchange's response and closes the connection. lws queues what
    /// the socket does not take at once and flushes it before closing; reading resumes
    /// only for that, since a closing connection parses nothing more.
    ///
    /// It is written here, not from HTTP_WRITEABLE: lws 4.1.6 delivers no WRITEABLE to
    /// an HTTP connection whose reading is paused.
    private func deliver(_ exchange: HTTPExchange, id: ConnectionID) {
        guard let response = exchange.response.withLock({ $0 }) else { return }
        exchanges[id] = nil
        // A 304 has no content (RFC 9110 §15.4.5); its Content-Length is the 200's (§8.6).
        _ = write(response, to: exchange.wsi, closing: true, omittingBody: exchange.omitsBody || response.status == 304)
        _ = lws_rx_flow_control(exchange.wsi, 1)
        lws_set_timeout(exchange.wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC)
    }

    /// Answers a refused request or upgrade at once, with `Connection: close`; the
    /// caller then returns -1 so lws closes the connection once the answer is out.
    private func refuse(_ wsi: OpaquePointer, _ refusal: RequestRefusal, peer: String, what: String) {
        logRefusal(refusal, peer: peer, what: what)
        _ = write(refusal.response, to: wsi, closing: true, omittingBody: false)
    }

    /// A `CONNECT` request, which lws has made a raw socket (no raw fallback is
    /// configured, so nothing else becomes one): answers 405 and closes.
    private func refuseTunnel(_ wsi: OpaquePointer) -> Int32 {
        logRefusal(TunnelRefusal.refusal, peer: WSIHeaders.peer(wsi), what: "http request refused")
        // LWS_WRITE_HTTP is what lws's LWS_WRITE_RAW macro (not imported) stands for.
        _ = writer.write(raw: TunnelRefusal.bytes, to: wsi, as: LWS_WRITE_HTTP)
        return -1
    }

    /// Writes status line, headers and (unless `omittingBody`) body; false when lws refused.
    private func write(_ response: HTTPResponse, to wsi: OpaquePointer, closing: Bool, omittingBody: Bool) -> Bool {
        guard HTTPHeaderWriter.write(response, to: wsi, closing: closing) else { return false }
        guard !omittingBody, !response.body.isEmpty else { return true }
        return writer.write(raw: response.body, to: wsi, as: LWS_WRITE_HTTP_FINAL)
    }

    /// Logs a refused request and counts it by reason.
    private func logRefusal(_ refusal: RequestRefusal, peer: String, what: String) {
        logger.refused(
            what,
            [
                "peer": peer, "status": refusal.status, "reason": refusal.reason.rawValue,
                "message": refusal.message,
            ])
        configuration.observer?.requestRefused(reason: refusal.reason.rawValue)
    }

    /// The next id of this loop's series (`ServiceShard.index` + 1, in steps of the
    /// thread count), so that ids are unique in the process.
    private func takeID() -> ConnectionID {
        defer { nextID += UInt64(shard.count) }
        return ConnectionID(nextID)
    }
}
