extension ClientMessage {
    /// This message as a compact JSON text frame, as a client sends it.
    ///
    /// `publish` is always written with `locs` and without `seq`; `ack` only when true.
    public func encoded() -> [UInt8] {
        switch self {
        case .subscribe(let request):
            var writer = JSONObjectWriter(op: "subscribe")
            request.appendMembers(to: &writer)
            return writer.finish()
        case .unsubscribe:
            return JSONObjectWriter(op: "unsubscribe").finish()
        case .publish(let locations, let ack):
            var writer = JSONObjectWriter(op: "publish", capacity: 32 + 160 * locations.count)
            writer.key("locs")
            writer.bytes.append(.openBracket)
            for (position, location) in locations.enumerated() {
                if position > 0 { writer.bytes.append(.comma) }
                var member = JSONObjectWriter(openBrace: true)
                location.appendMembers(to: &member, includingSeq: false)
                writer.bytes.append(contentsOf: member.finish())
            }
            writer.bytes.append(.closeBracket)
            if ack { writer.bool("ack", true) }
            return writer.finish()
        case .ping(let t):
            var writer = JSONObjectWriter(op: "ping")
            if let t { writer.value("t", t) }
            return writer.finish()
        case .auth(let token):
            var writer = JSONObjectWriter(op: "auth")
            writer.string("token", token)
            return writer.finish()
        }
    }
}
