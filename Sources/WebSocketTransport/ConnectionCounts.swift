import Locking

/// The WebSocket connections open on every service thread of one server, in all and per
/// remote address. The transport's connection limits are checked here, so they hold
/// however the connections are spread over the threads.
final class ConnectionCounts: Sendable {
    private struct State {
        var total = 0
        var perAddress: [String: Int] = [:]
    }

    private let state = Locked(State())

    /// Open connections, in all.
    var total: Int { state.withLock { $0.total } }

    /// Counts a new connection from `address` and returns nil, or returns the limit it
    /// would pass and counts nothing. One critical section, so two threads cannot both
    /// take the last place.
    func admit(from address: String, maxTotal: Int, maxPerAddress: Int) -> String? {
        state.withLock { state in
            if state.total >= maxTotal { return "max connections" }
            if state.perAddress[address, default: 0] >= maxPerAddress { return "max connections per address" }
            state.total += 1
            state.perAddress[address, default: 0] += 1
            return nil
        }
    }

    /// A connection from `address` closed.
    func closed(from address: String) {
        state.withLock { state in
            state.total -= 1
            let remaining = state.perAddress[address, default: 1] - 1
            state.perAddress[address] = remaining > 0 ? remaining : nil
        }
    }
}
