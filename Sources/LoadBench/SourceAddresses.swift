import WebSocketTransport

/// The local addresses a bench spreads its connections over: 127.0.0.1 … 127.0.0.N.
///
/// Each source address has its own range of ephemeral ports, so thousands of
/// connections (and the TIME_WAIT of storms) do not exhaust them. Only used when the
/// server's URL is an IPv4 loopback literal: a bound loopback source cannot reach any
/// other host, and the bench only ever targets the URL it was given.
struct SourceAddresses: Sendable, Equatable {
    /// The addresses, in the order connections take them; empty means "let the kernel choose".
    let addresses: [String]

    /// Up to `count` loopback source addresses when `host` is `127.x.x.x`, none otherwise.
    init(count: Int, host: String) {
        guard Self.isLoopbackLiteral(host), count > 0 else {
            addresses = []
            return
        }
        addresses = (1...min(count, 254)).map { "127.0.0.\($0)" }
    }

    /// The source address of connection number `index`, or nil to let the kernel choose.
    func address(for index: Int) -> String? {
        addresses.isEmpty ? nil : addresses[index % addresses.count]
    }

    /// Whether `host` is a dotted IPv4 literal in 127.0.0.0/8.
    static func isLoopbackLiteral(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in part.count <= 3 && UInt8(part) != nil }
    }
}
