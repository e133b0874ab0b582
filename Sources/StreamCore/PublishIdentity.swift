/// Who publishes, for the publish rate limit: the token's `sub` when auth is on, else
/// the peer's address. The WebSocket `publish` op and `POST /v1/locations` of one
/// identity share one budget.
public enum PublishIdentity: Hashable, Sendable, CustomStringConvertible {
    /// An authenticated client, by its token's `sub`.
    case client(String)
    /// An unauthenticated peer, by its address.
    case address(String)

    /// The identity of a publisher with `claimsSubject` (nil without auth) at `peer`.
    public init(subject claimsSubject: String?, peer: String) {
        self = claimsSubject.map(PublishIdentity.client) ?? .address(peer)
    }

    /// `client:<sub>` or `address:<peer>`, for logs.
    public var description: String {
        switch self {
        case .client(let subject): "client:\(subject)"
        case .address(let peer): "address:\(peer)"
        }
    }
}
