import Locking
import LocstreamProtocol
import WebSocketTransport

/// The live state of a running `subscribe`, shared by the task reading the server, the task
/// reading stdin and the shutdown path: the plan, and the connection it is carried out on.
///
/// Every change of the plan and the frame that announces it to the server happen in one
/// critical section, so a switch typed during a reconnect is neither lost nor sent twice.
final class SubscriptionSession: Sendable {
    /// What `attach` did.
    enum Attachment: Sendable, Equatable {
        /// The connection is live; the subscribe request sent on it, if any was wanted.
        case attached(SubscribeRequest?)
        /// The session is shutting down: the connection was closed instead.
        case quitting
    }

    /// Everything the lock guards.
    private struct State: Sendable {
        var plan: SubscriptionPlan
        var connection: WebSocketConnection?
        var quitting = false
    }

    private let state: Locked<State>

    /// A session carrying out `plan`, not yet connected.
    init(plan: SubscriptionPlan) {
        state = Locked(State(plan: plan))
    }

    /// Makes `connection` the live one and sends it what the plan wants, resuming with
    /// `since` from the last seq seen per device.
    func attach(_ connection: WebSocketConnection) -> Attachment {
        state.withLock { state in
            guard !state.quitting else {
                connection.close(code: 1000)
                return .quitting
            }
            state.connection = connection
            guard let request = state.plan.connectionOpened() else { return .attached(nil) }
            Self.send(.subscribe(request), on: connection)
            return .attached(request)
        }
    }

    /// The live connection has ended.
    func detach() {
        state.withLock { $0.connection = nil }
    }

    /// Carries out a switch or an `unsub` typed on stdin. Returns the new request for a
    /// switch, and whether a connection was there to send it on.
    func apply(_ command: StdinCommand) -> (request: SubscribeRequest?, sent: Bool) {
        state.withLock { state in
            switch command {
            case .subscribe(let target):
                let request = state.plan.switchTo(target)
                if let connection = state.connection { Self.send(.subscribe(request), on: connection) }
                return (request, state.connection != nil)
            case .unsubscribe:
                state.plan.unsubscribe()
                if let connection = state.connection { Self.send(.unsubscribe, on: connection) }
                return (nil, state.connection != nil)
            case .quit, .help:
                return (nil, false)
            }
        }
    }

    /// Notes a `loc` frame; returns its device's previous seq in the current subscription.
    func record(sub: String, location: Location) -> UInt64? {
        state.withLock { $0.plan.record(sub: sub, device: location.device, seq: location.seq) }
    }

    /// The server confirmed subscription `sub`.
    func confirmed(sub: String) {
        state.withLock { $0.plan.confirmed(sub: sub) }
    }

    /// The server refused a subscribe; returns the subscription still running, if the
    /// plan fell back to one.
    func refused() -> SubscribeRequest? {
        state.withLock { $0.plan.refused() }
    }

    /// Starts shutting down: closes the live connection with 1000. Returns whether there was one.
    func quit() -> Bool {
        state.withLock { state in
            state.quitting = true
            state.connection?.close(code: 1000)
            return state.connection != nil
        }
    }

    /// Whether `quit` was called.
    var isQuitting: Bool { state.withLock { $0.quitting } }

    private static func send(_ message: ClientMessage, on connection: WebSocketConnection) {
        connection.send(OutboundFrame(body: message.encoded()))
    }
}
