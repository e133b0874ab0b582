import Locking

/// Whether this node should receive traffic: `/readyz` answers from it.
final class Readiness: Sendable {
    /// The node's phase.
    enum Phase: Sendable {
        case starting, serving, draining
    }

    private let phase = Locked(Phase.starting)

    /// Moves to `newPhase`.
    func enter(_ newPhase: Phase) { phase.withLock { $0 = newPhase } }

    /// True only while serving.
    var isReady: Bool { phase.withLock { $0 } == .serving }

    /// Why the node is not ready, for the 503 body.
    var reason: String {
        switch phase.withLock({ $0 }) {
        case .starting: "starting"
        case .serving: "ready"
        case .draining: "draining"
        }
    }
}
