import CWebsockets
import Locking
import Observability

/// A connection a client asked for, on its way to the service thread.
struct ClientConnectRequest: Sendable {
    let url: WebSocketURL
    let options: ClientConnectOptions
    let channel: ConnectionChannel
    let opened: OneShot<Result<Void, TransportError>>
}

/// Requests other threads send to a client's service thread.
enum ClientCommand: Sendable {
    case connect(ClientConnectRequest)
}

/// The client's service-thread side: opens connections, reads and writes them.
/// Everything here runs on the one service thread.
final class ClientLoop: ServiceLoop {
    /// A connection being opened or open.
    private final class ClientSocket {
        let request: ClientConnectRequest
        let memory = ContextMemory()
        var socket: LiveSocket?

        init(request: ClientConnectRequest) { self.request = request }
    }

    let mailbox: LoopMailbox<ClientCommand>
    let executor: ServiceExecutor
    private let caFile: String?
    private let eventLoop: EventLoopKind
    private let logger: Logger
    let writer = CorkedWriter(capacity: 64 * 1024)
    private let cMemory = ContextMemory()
    private var context: OpaquePointer?
    private var clients: [ConnectionID: ClientSocket] = [:]
    /// Sockets that read messages for a waiting consumer this turn; woken when it ends.
    private var wakes: [LiveSocket] = []
    var busyReaders: [ConnectionID] = []
    /// The libev loop lws runs on with `.libev`; freed after the context.
    var libev: LibevLoop?

    init(
        mailbox: LoopMailbox<ClientCommand>, executor: ServiceExecutor, caFile: String?, eventLoop: EventLoopKind,
        logger: Logger
    ) {
        self.mailbox = mailbox
        self.executor = executor
        self.caFile = caFile
        self.eventLoop = eventLoop
        self.logger = logger
    }

    func createContext() -> Result<(context: OpaquePointer, port: Int), TransportError> {
        LibwebsocketsLog.route(to: logger)
        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        // The C entry point lws calls for every client event.
        info.protocols = cMemory.protocols(name: "locstream-client") { ClientLoop.forward($0, $1, $2, $3, $4) }
        info.options = locstream_client_options()
        // The buffer lws reads into (its default is 4 KiB), one per context. A WebSocket
        // read is still at most its `rx_buffer_size` (1 KiB); `readAhead` reads a busy one
        // again at the end of each turn.
        info.pt_serv_buf_size = 64 * 1024
        info.client_ssl_ca_filepath = caFile.flatMap { cMemory.string($0) }
        if let failure = lend(to: &info, eventLoop: eventLoop) { return .failure(failure) }
        guard let context = lws_create_context(&info) else {
            return .failure(.contextCreationFailed("cannot create the client context"))
        }
        self.context = context
        return .success((context, 0))
    }

    /// Answers one lws callback.
    func handle(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Int32 {
        guard let id = ConnectionID(opaque: lws_get_opaque_user_data(wsi)), let client = clients[id] else {
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
        switch reason {
        case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
            return appendHeaders(client.request.options.headers, input, length) ? 0 : -1
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            client.socket = LiveSocket(
                wsi: wsi, channel: client.request.channel, maxMessageBytes: client.request.options.maxMessageBytes,
                defersWake: true)
            client.request.opened.fulfil(.success(()))
            _ = client.socket?.serviceRequested(mayWriteAtOnce: false)
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            let why = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection error"
            finish(id, client, error: ConnectFailure.error(wsi, lwsMessage: why))
        case LWS_CALLBACK_CLIENT_RECEIVE:
            guard let socket = client.socket else { return 0 }
            let wasPending = socket.wakePending
            if socket.receive(input, length) != nil { return -1 }
            if socket.wakePending && !wasPending { wakes.append(socket) }
            noteReceived(on: socket, id: id)
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            guard let socket = client.socket else { return 0 }
            return write(socket, byteBudget: 0, corked: false, observer: nil)
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            if client.socket?.peerClosed(input, length) == false { return -1 }
        case LWS_CALLBACK_CLIENT_CLOSED:
            finish(id, client, error: .connectFailed("closed before the handshake completed"))
        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
        return 0
    }

    func serviceTurnEnded(_ context: OpaquePointer) {
        readAhead(in: context)
        guard !wakes.isEmpty else { return }
        for socket in wakes { socket.wakeConsumer() }
        wakes.removeAll(keepingCapacity: true)
    }

    func perform(_ command: ClientCommand) {
        switch command {
        case .connect(let request): open(request)
        }
    }

    func serviceRequested(for id: ConnectionID) {
        _ = clients[id]?.socket?.serviceRequested(mayWriteAtOnce: false)
    }

    func liveSocket(_ id: ConnectionID) -> LiveSocket? { clients[id]?.socket }

    private func open(_ request: ClientConnectRequest) {
        guard let context else { return }
        let client = ClientSocket(request: request)
        let memory = client.memory
        let url = request.url
        var info = lws_client_connect_info()
        info.context = context
        info.address = memory.string(url.host)
        info.port = Int32(url.port)
        info.path = memory.string(url.pathAndQuery)
        info.host = info.address
        info.origin = info.address
        info.protocol = request.options.subprotocol.flatMap { memory.string($0) }
        info.local_protocol_name = memory.string("locstream-client")
        info.ssl_connection = locstream_client_ssl_flags(url.isSecure ? 1 : 0, request.options.insecure ? 1 : 0)
        info.iface = request.options.sourceAddress.flatMap { memory.string($0) }
        info.opaque_user_data = request.channel.id.opaque
        clients[request.channel.id] = client
        if lws_client_connect_via_info(&info) == nil {
            finish(
                request.channel.id, client, error: .connectFailed("cannot start connecting to \(url.host):\(url.port)"))
        }
    }

    /// The connection ended (or never opened): report it and forget it.
    private func finish(_ id: ConnectionID, _ client: ClientSocket, error: TransportError) {
        clients[id] = nil
        client.request.opened.fulfil(.failure(error))
        if let socket = client.socket {
            socket.closed()
        } else {
            client.request.channel.finishInbound()
            _ = client.request.channel.outbox.withLock { $0.close() }
        }
    }

    /// Writes `Name: value\r\n` lines into lws's handshake buffer.
    private func appendHeaders(
        _ headers: [(name: String, value: String)], _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Bool {
        guard let input, !headers.isEmpty else { return true }
        let cursor = input.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>.self)
        let bytes = Array(headers.map { "\($0.name): \($0.value)\r\n" }.joined().utf8)
        guard bytes.count < length else { return false }
        bytes.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { cursor.pointee.update(from: base, count: source.count) }
        }
        cursor.pointee += bytes.count
        return true
    }
}
