extension ServerMessage {
    /// This frame as compact JSON bytes, written directly without Foundation.
    public func encoded() -> [UInt8] {
        switch self {
        case .welcome(let conn, let node):
            var writer = JSONObjectWriter(op: "welcome")
            writer.string("conn", conn)
            writer.string("node", node)
            writer.integer("proto", ProtocolLimits.version)
            return writer.finish()
        case .authed(let client, let exp):
            var writer = JSONObjectWriter(op: "authed")
            writer.string("client", client)
            writer.integer("exp", exp)
            return writer.finish()
        case .subscribed(let sub, let restarted, let snapshot):
            var writer = JSONObjectWriter(op: "subscribed")
            writer.string("sub", sub)
            writer.bool("restarted", restarted)
            writer.integer("snapshot", Int64(snapshot))
            return writer.finish()
        case .loc(let sub, let location):
            return EncodedLocation(location).frame(prefix: LocationFrame.prefix(sub: sub))
        case .leave(let sub, let device):
            var writer = JSONObjectWriter(op: "leave")
            writer.string("sub", sub)
            writer.string("device", device)
            return writer.finish()
        case .unsubscribed(let sub):
            var writer = JSONObjectWriter(op: "unsubscribed")
            writer.string("sub", sub)
            return writer.finish()
        case .published(let count):
            var writer = JSONObjectWriter(op: "published")
            writer.integer("count", Int64(count))
            return writer.finish()
        case .pong(let t):
            var writer = JSONObjectWriter(op: "pong")
            if let t { writer.value("t", t) }
            return writer.finish()
        case .error(let error):
            var writer = JSONObjectWriter(op: "error", capacity: 64 + error.message.utf8.count)
            writer.string("code", error.code.rawValue)
            writer.string("message", error.message)
            if let failedOp = error.failedOp { writer.string("failed_op", failedOp) }
            return writer.finish()
        }
    }
}
