import LocstreamProtocol
import Testing

@testable import Client

/// Which server errors stop `subscribe`, and what it says about `--token`.
@Suite("token refusals")
struct TokenRefusalTests {
    @Test("unauthorized stops it, except the expiry warning; forbidden only for the first subscription")
    func verdicts() {
        let refused = ProtocolError(.unauthorized, "token refused: expired", failedOp: "auth")
        #expect(TokenRefusal.message(for: refused, hasToken: true, isSwitch: true)?.contains("--token") == true)
        let missing = ProtocolError(.unauthorized, "authenticate first", failedOp: "subscribe")
        #expect(
            TokenRefusal.message(for: missing, hasToken: false, isSwitch: false)?.hasPrefix(
                "the server needs a token") == true)
        let expiring = ProtocolError(.unauthorized, "token expiring")
        #expect(TokenRefusal.message(for: expiring, hasToken: true, isSwitch: true) == nil)
        let forbidden = ProtocolError(.forbidden, "not allowed", failedOp: "subscribe")
        #expect(TokenRefusal.message(for: forbidden, hasToken: true, isSwitch: false) != nil)
        #expect(TokenRefusal.message(for: forbidden, hasToken: true, isSwitch: true) == nil)
        let other = ProtocolError(.badRequest, "bad", failedOp: "subscribe")
        #expect(TokenRefusal.message(for: other, hasToken: true, isSwitch: false) == nil)
        #expect(TokenRefusal.message(forClose: 1008)?.contains("--token") == true)
        #expect(TokenRefusal.message(forClose: 1001) == nil && TokenRefusal.message(forClose: nil) == nil)
    }
}
