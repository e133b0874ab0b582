/// Why a verification key could not be loaded.
///
/// The message names the file (when there is one) but never the secret or key material,
/// so the server can print it as a startup error beside the option that gave the key.
public struct JWTKeyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of failure.
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        /// The file could not be opened or read, or is too large to be a key.
        case unreadable
        /// The secret or file is empty.
        case empty
        /// The key is weaker than RFC 7518 allows (HS256 secret under 32 bytes, RSA under 2048 bits).
        case tooWeak = "too_weak"
        /// The text is not a PEM public key.
        case invalid
        /// A valid public key of a kind that is neither RSA nor P-256 ECDSA.
        case unsupported
    }

    /// The class of failure.
    public let reason: Reason
    /// A sentence naming what is wrong, suitable after "--option: ".
    public let message: String

    /// Makes an error with a reason and a human message.
    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { message }
}
