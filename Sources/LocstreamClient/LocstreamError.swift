/// Why a location sequence or a publish failed. A sequence throws only what retrying cannot
/// fix; network faults lead to a reconnect instead, shown as `LocationUpdate.reconnecting`.
public enum LocstreamError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The token does not allow this subscription or publish (`forbidden`).
    case forbidden(ProtocolError)
    /// The request was malformed or out of range (`bad_request`, `too_large`, `sub_id_reused`).
    case badRequest(ProtocolError)
    /// There was no valid token (`unauthorized`).
    case unauthorized(ProtocolError)
    /// The server refused for another reason (`rate_limited`, `internal`…).
    case refused(ProtocolError)
    /// The server ended the subscription itself (a refreshed token no longer covers it).
    case endedByServer
    /// The connection failed or closed before the server answered a publish; the
    /// locations may or may not have been stored.
    case connectionLost(String)
    /// The connection a publish needs could not be opened; nothing was sent.
    case cannotConnect(String)

    /// The error a refused request ends in.
    init(_ error: ProtocolError) {
        switch error.code {
        case .forbidden: self = .forbidden(error)
        case .unauthorized: self = .unauthorized(error)
        case .badRequest, .badJSON, .tooLarge, .subIdReused, .unknownOp: self = .badRequest(error)
        case .rateLimited, .notSubscribed, .internal: self = .refused(error)
        }
    }

    /// The server's `error` frame behind this error, when there was one.
    public var serverError: ProtocolError? {
        switch self {
        case .forbidden(let error), .badRequest(let error), .unauthorized(let error), .refused(let error): error
        case .endedByServer, .connectionLost, .cannotConnect: nil
        }
    }

    /// In words, for logs.
    public var description: String {
        switch self {
        case .forbidden(let error), .badRequest(let error), .unauthorized(let error), .refused(let error):
            error.description
        case .endedByServer: "the server ended the subscription"
        case .connectionLost(let why): "connection lost: \(why)"
        case .cannotConnect(let why): "cannot connect: \(why)"
        }
    }
}
