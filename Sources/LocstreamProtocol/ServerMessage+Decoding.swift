extension ServerMessage {
    /// Decodes one frame from the server, for clients and tests.
    ///
    /// Validates as strictly as the server's decoder: a `loc` frame must carry a valid location
    /// with its `seq`. Throws `bad_json`, `bad_request` or `unknown_op` like `ClientMessage.decode`.
    /// A `loc` frame as the server writes it takes a fast path (`LocFrameDecoder`) that gives
    /// the same message without building the JSON value.
    public static func decode(_ bytes: some Collection<UInt8>) throws(ProtocolError) -> ServerMessage {
        if let fast = bytes.withContiguousStorageIfAvailable({ LocFrameDecoder.decode($0) }), let fast {
            return fast
        }
        return try decodeGeneral(bytes)
    }

    /// Decodes through the JSON value: every frame the fast path leaves, and the reference
    /// the tests hold it to.
    static func decodeGeneral(_ bytes: some Collection<UInt8>) throws(ProtocolError) -> ServerMessage {
        guard case .object(let members) = try JSONValue(parsing: bytes) else {
            throw ProtocolError(.badRequest, "a frame must be a JSON object")
        }
        guard case .string(let op)? = members["op"] else {
            throw ProtocolError(.badRequest, "op must be a string")
        }
        let fields = FieldReader(members: members, path: "", op: op)
        switch op {
        case "welcome":
            return .welcome(
                conn: try fields.required("conn", .anyString), node: try fields.required("node", .anyString)
            )
        case "authed":
            return .authed(
                client: try fields.required("client", .anyString),
                exp: try fields.required("exp", .nonNegativeInteger))
        case "subscribed":
            return .subscribed(
                sub: try fields.required("sub", .identifier),
                restarted: try fields.required("restarted", .boolean),
                snapshot: Int(try fields.required("snapshot", .nonNegativeInteger)))
        case "loc":
            return .loc(
                sub: try fields.required("sub", .identifier),
                location: try Location(json: .object(members), name: "", op: op, readsSeq: true))
        case "leave":
            return .leave(
                sub: try fields.required("sub", .identifier),
                device: try fields.required("device", .deviceID))
        case "unsubscribed":
            return .unsubscribed(sub: try fields.required("sub", .identifier))
        case "published":
            return .published(count: Int(try fields.required("count", .nonNegativeInteger)))
        case "pong":
            return .pong(t: try fields.optional("t", .anyNumber))
        case "error":
            return .error(try error(fields))
        default:
            throw ProtocolError(.unknownOp, "unknown server op", failedOp: op)
        }
    }

    private static func error(_ fields: FieldReader) throws(ProtocolError) -> ProtocolError {
        let codeName = try fields.required("code", .anyString)
        guard let code = ErrorCode(rawValue: codeName) else {
            throw fields.invalid("code", "one of the error codes of PROTOCOL.md")
        }
        return ProtocolError(
            code, try fields.required("message", .anyString),
            failedOp: try fields.optional("failed_op", .anyString))
    }
}
