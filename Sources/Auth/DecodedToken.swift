import LocstreamProtocol

/// A token read without checking its signature: what it says, for showing to a person
/// (`stream-client token inspect`). Nothing here is trusted; `JWTVerifier` decides.
public struct DecodedToken: Sendable {
    /// The JOSE header, as parsed.
    public let header: JSONValue
    /// The claims set, as parsed.
    public let payload: JSONValue
    /// The claims a server reads from the payload, or why it refuses them.
    public let claims: Result<Claims, AuthError>

    /// Splits and parses `token` with the verifier's strict rules, without a key.
    ///
    /// - Throws: `AuthError.malformed` when it is not a compact JWS whose header and payload
    ///   are JSON objects; the message never quotes the token.
    public init(_ token: String) throws(AuthError) {
        let jws = try CompactJWS(token)
        header = try JSONFields(json: jws.header, part: "header").object
        let fields = try JSONFields(json: jws.payload, part: "payload")
        payload = fields.object
        claims = Result { () throws(AuthError) in try Claims(payload: fields) }
    }
}
