import Auth
import Foundation
import LocstreamProtocol

/// What `stream-client token inspect` says about one token: its header and claims, what it
/// allows and until when, its signature, and a last line that says whether a server with
/// the key would accept it now.
///
/// Text from the token (its `sub`, its patterns) is shown as JSON strings, escaped, so a
/// token cannot write control characters to the terminal.
struct TokenReport {
    /// How the signature was checked.
    enum Signature {
        /// No key was given.
        case notChecked
        /// It verifies with the key described.
        case verified(key: String)
        /// It does not verify, or the header names another algorithm than the key's.
        case refused(AuthError)
    }

    /// The lines to print, the verdict last.
    private(set) var lines: [String] = []
    /// Whether nothing the report could check refuses the token.
    private(set) var acceptable = true

    /// The report on `token` at `now`.
    init(_ token: DecodedToken, signature: Signature, now: Date) {
        add("header", String(decoding: token.header.encoded(), as: UTF8.self))
        add("claims", String(decoding: token.payload.encoded(), as: UTF8.self))
        let claims: Claims
        switch token.claims {
        case .success(let read): claims = read
        case .failure(let error):
            refuse("a server refuses its claims: \(error.message)")
            return
        }
        describe(claims, now: now)
        switch signature {
        case .notChecked: add("signature", "not checked: give --secret-file or --public-key to check it")
        case .verified(let key): add("signature", "verified with the \(key)")
        case .refused(let error):
            add("signature", "REFUSED: \(error.message)")
            refuse("the signature does not hold")
            return
        }
        do {
            try claims.checkValidity(at: now, leeway: 0)
        } catch {
            refuse(error.message)
            return
        }
        let until = RelativeTime.describe(claims.expirySeconds, from: now)
        if case .verified = signature {
            add("verdict", "valid until \(until)")
        } else {
            add("verdict", "the claims hold until \(until); the signature is not checked")
        }
    }

    /// The claims: who, when, and the rights.
    private mutating func describe(_ claims: Claims, now: Date) {
        add("subject", Self.quoted(claims.subject))
        if let issued = claims.issuedAtSeconds { add("issued", RelativeTime.describe(issued, from: now)) }
        if let notBefore = claims.notBeforeSeconds { add("not before", RelativeTime.describe(notBefore, from: now)) }
        add(
            "expires",
            RelativeTime.describe(claims.expirySeconds, from: now)
                + "; a server allows its --jwt-leeway (30 s by default) after it")
        add("devices", Self.rights(claims.devicePatterns, verb: "subscribe to"))
        add("publish", Self.rights(claims.publishPatterns, verb: "publish for"))
        add("areas", claims.areas ? "yes: area subscriptions, showing only the devices above" : "no")
    }

    /// The last line, for a token a server refuses.
    private mutating func refuse(_ reason: String) {
        acceptable = false
        add("verdict", "INVALID: \(reason)")
    }

    private mutating func add(_ label: String, _ value: String) {
        lines.append((label + ":").padding(toLength: 12, withPad: " ", startingAt: 0) + value)
    }

    /// `"veh-*", "depot-1"`, or what an empty list means.
    private static func rights(_ patterns: [GlobPattern], verb: String) -> String {
        guard !patterns.isEmpty else { return "none (it may \(verb) no device)" }
        return patterns.map { quoted($0.pattern) }.joined(separator: ", ")
    }

    /// `text` as a JSON string.
    private static func quoted(_ text: String) -> String {
        String(decoding: JSONValue.string(text).encoded(), as: UTF8.self)
    }
}
