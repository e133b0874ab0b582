import WebSocketTransport

/// The `conn` id of each WebSocket connection, as `welcome` and the log lines show it: the
/// node's name, eight hex digits drawn at random when the process starts, and the
/// connection's number within the process (`node-1-3f9a2c1b-17`). The random part keeps ids
/// apart across restarts and across nodes that share a name, so a support request can name
/// one connection.
struct ConnectionNames: Sendable {
    /// Everything before the connection's number: `NODE-RRRRRRRR`.
    let prefix: String

    /// Names for the connections of node `node`, with `random` as the process's part.
    init(node: String, random: UInt32 = .random(in: .min ... .max)) {
        let digits = String(random, radix: 16)
        prefix = node + "-" + String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// The id of connection `id`.
    func name(_ id: ConnectionID) -> String {
        "\(prefix)-\(id)"
    }
}
