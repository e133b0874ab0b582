import LocstreamProtocol
import StreamCore

extension SubscriptionScope {
    /// Subscribes and waits for the switch, as a session's `handle` does.
    func subscribeAndWait(_ request: SubscribeRequest) async throws(ProtocolError) {
        if let refusal = try await subscribe(request)?.run() { throw refusal }
    }
}
