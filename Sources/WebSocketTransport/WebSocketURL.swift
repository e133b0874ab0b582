import Foundation

/// A parsed `ws://` or `wss://` URL.
public struct WebSocketURL: Sendable, Equatable {
    /// True for `wss://`.
    public var isSecure: Bool
    /// The host name or address.
    public var host: String
    /// The port (default 80 or 443).
    public var port: Int
    /// The path with its query, e.g. `/v1/stream?token=x`.
    public var pathAndQuery: String

    /// Parses `text`; throws `.invalidURL` unless it is a ws:// or wss:// URL with a host.
    public init(_ text: String) throws(TransportError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "ws" || scheme == "wss", let host = components.host, !host.isEmpty
        else { throw .invalidURL(text) }
        isSecure = scheme == "wss"
        self.host = host
        port = components.port ?? (isSecure ? 443 : 80)
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        pathAndQuery = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }
}

/// How a client connection is made: its URL, what it offers, and how it trusts TLS.
public struct ClientConnectOptions: Sendable {
    /// The sub-protocol to offer; nil offers none.
    public var subprotocol: String? = "locstream.v1"
    /// Extra request headers, e.g. `("Authorization", "Bearer …")`.
    public var headers: [(name: String, value: String)] = []
    /// Accept self-signed or mismatched certificates (tests, local use).
    public var insecure = false
    /// The local address to connect from (e.g. `127.0.0.2`, to spread ephemeral ports).
    public var sourceAddress: String?
    /// How long the connection may take to open.
    public var timeout: Duration = .seconds(10)
    /// The largest message accepted from the server.
    public var maxMessageBytes = 16 << 20

    /// The defaults.
    public init() {}
}
