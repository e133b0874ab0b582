import Locking

/// Whether this node should receive traffic: `/readyz` answers from it.
final class Readiness: Sendable {
    /// The node's phase.
    enum Phase: Sendable {
        case starting, serving, draining
    }

    private let phase = Locked(Phase.starting)
    private let brokerReachable: @Sendable () -> Bool

    /// Readiness that also requires `brokerReachable()`.
    init(brokerReachable: @escaping @Sendable () -> Bool) {
        self.brokerReachable = brokerReachable
    }

    /// Moves to `newPhase`.
    func enter(_ newPhase: Phase) { phase.withLock { $0 = newPhase } }

    /// True only while serving with the broker reachable.
    var isReady: Bool { phase.withLock { $0 } == .serving && brokerReachable() }

    /// Why the node is not ready, for the 503 body.
    var reason: String {
        switch phase.withLock({ $0 }) {
        case .starting: "starting"
        case .serving: brokerReachable() ? "ready" : "broker unreachable"
        case .draining: "draining"
        }
    }
}
