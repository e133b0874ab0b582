import Foundation
import LocstreamClient
import TestSupport

/// A token provider a test can hold shut: while shut, a call waits until the test opens it,
/// so the test decides when a reconnect may go ahead.
actor TokenGate {
    private var isOpen = true
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var watchers: [CheckedContinuation<Void, Never>] = []
    /// How many tokens were asked for.
    private(set) var calls = 0

    /// Holds every later call until `open()`.
    func shut() { isOpen = false }

    /// Lets every held call and every later one through.
    func open() {
        isOpen = true
        for continuation in waiting { continuation.resume() }
        waiting = []
    }

    /// Returns once a call is being held.
    func held() async {
        guard waiting.isEmpty else { return }
        await withCheckedContinuation { watchers.append($0) }
    }

    /// A token for the test servers' secret, once the gate is open.
    func token(expiresIn seconds: TimeInterval = 600) async throws -> String {
        calls += 1
        if !isOpen {
            await withCheckedContinuation { continuation in
                waiting.append(continuation)
                for watcher in watchers { watcher.resume() }
                watchers = []
            }
        }
        return try TestTokens.make(expiresIn: seconds)
    }
}
