/// How a `LocstreamClient` behaves: reconnects, tokens, connection reuse and publish batches.
public struct ClientConfiguration: Sendable {
    /// Returns a fresh token. Called before every connect (the first and each reconnect) and
    /// when the server warns `token expiring`. When it throws, the connect counts as failed
    /// and is tried again after the reconnect policy's wait.
    public typealias TokenProvider = @Sendable () async throws -> String

    /// The waits between reconnects.
    public var reconnect = ReconnectPolicy()
    /// Where tokens come from; nil connects without one (a server with auth off).
    public var tokenProvider: TokenProvider?
    /// How long a connection whose sequence has ended keeps its subscription, so that a
    /// sequence started right after (a `.task(id:)` restart) switches it with one `subscribe`.
    /// After this the subscription is ended with `unsubscribe`.
    public var switchWindow: Duration = .milliseconds(50)
    /// How long an idle connection is kept open for the next sequence before it is closed.
    public var idleTimeout: Duration = .seconds(30)
    /// How many updates may wait for a sequence's iterator. Past it the connection is not
    /// read until the iterator catches up, and the server, seeing a slow consumer, conflates
    /// (or, with `--slow-consumer disconnect`, closes and the sequence reconnects).
    public var bufferLimit = 4096
    /// The largest `publish` frame sent; longer lists go in several. The server's default
    /// `--max-message-bytes` is 65536.
    public var maxPublishBytes = 60_000
    /// The largest resubscribe sent: `since` names fewer devices (those heard from last) when
    /// it would be larger.
    package var maxSubscribeBytes = 60_000
    /// Sees every frame received, every close and every failed connect, on the connection's
    /// reader; it must not block.
    package var observer: (@Sendable (WireEvent) -> Void)?
    /// Whether each delivery keeps the frame it came from (`Delivery.frame`, for `--json`).
    package var keepsFrames = false
    /// The `sub` of the client's n-th sequence (from 1); every n must give another id.
    package var subID: @Sendable (UInt64) -> String = { "s\($0)" }

    /// The defaults; `tokenProvider` when the server runs with auth.
    public init(tokenProvider: TokenProvider? = nil) {
        self.tokenProvider = tokenProvider
    }
}
