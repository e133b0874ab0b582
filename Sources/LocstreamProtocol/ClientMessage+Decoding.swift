extension ClientMessage {
    /// Decodes one text frame. Throws ProtocolError with the exact PROTOCOL.md code and
    /// `failedOp` set to the op when known.
    ///
    /// Not JSON is `bad_json`; JSON that is not an object, a missing or non-string `op`, and any
    /// field missing, mistyped or out of range is `bad_request`; an op this protocol does not
    /// define is `unknown_op`; more than 1000 devices or locations is `too_large`. Fields the
    /// protocol does not define are ignored.
    ///
    /// A publish of the usual shape takes `PublishScanner`'s fast path; the answer is the
    /// same either way.
    public static func decode(_ bytes: some Collection<UInt8>) throws(ProtocolError) -> ClientMessage {
        let bytes = Array(bytes)
        if let publish = PublishScanner.decode(bytes) { return publish }
        return try decodeTree(bytes)
    }

    /// Decodes `bytes` through a `JSONValue` tree: any message, with every error.
    static func decodeTree(_ bytes: [UInt8]) throws(ProtocolError) -> ClientMessage {
        guard case .object(let members) = try JSONValue(parsing: bytes) else {
            throw ProtocolError(.badRequest, "a message must be a JSON object")
        }
        guard let opValue = members["op"] else {
            throw ProtocolError(.badRequest, "op is missing: every message needs an op string")
        }
        guard case .string(let op) = opValue else {
            throw ProtocolError(.badRequest, "op must be a string")
        }
        let fields = FieldReader(members: members, path: "", op: op)
        switch op {
        case "subscribe":
            return .subscribe(try SubscribeRequest(fields: fields))
        case "unsubscribe":
            return .unsubscribe
        case "publish":
            return try publish(fields)
        case "ping":
            return .ping(t: try fields.optional("t", .anyNumber))
        case "auth":
            return .auth(token: try fields.required("token", .nonEmptyString))
        default:
            throw ProtocolError(
                .unknownOp,
                "unknown op \(summary(of: op)); protocol v1 has subscribe, unsubscribe, publish, ping and auth",
                failedOp: op)
        }
    }

    private static func publish(_ fields: FieldReader) throws(ProtocolError) -> ClientMessage {
        let locations: [Location]
        switch (fields.members["loc"], fields.members["locs"]) {
        case (let loc?, nil):
            locations = [try Location(json: loc, name: "loc", op: fields.op, readsSeq: false)]
        case (nil, let locs?):
            locations = try Location.decodeList(locs, name: "locs", op: fields.op)
        case (nil, nil):
            throw fields.failure("publish needs loc (one location) or locs (an array of 1 to 1000)")
        case (.some, .some):
            throw fields.failure("publish takes loc or locs, not both")
        }
        return .publish(locations, ack: try fields.optional("ack", .boolean) ?? false)
    }

    /// The op quoted for a message, shortened when a hostile client sent a very long one.
    private static func summary(of op: String) -> String {
        let limit = 64
        return op.unicodeScalars.count <= limit
            ? "\"\(op)\"" : "\"\(String(op.unicodeScalars.prefix(limit)))…\""
    }
}
