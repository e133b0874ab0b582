import Foundation
import Locking
import LocstreamProtocol
import StreamCore

/// A `FrameSink` for tests: it keeps the frames it accepts, in order, and applies the
/// same generation rule as the real outbox (stale data frames are refused; `advance`
/// purges queued data frames of older generations before queueing the ack).
final class RecordingSink: FrameSink {
    private struct State {
        var generation: UInt64 = 0
        var frames: [(generation: UInt64?, bytes: [UInt8])] = []
        var closed: (UInt16, String)?
    }

    private let state = Locked(State())

    func sendControl(_ frame: [UInt8]) -> Bool {
        state.withLock { $0.frames.append((nil, frame)) }
        return true
    }

    func send(head: [UInt8], body: [UInt8], key: String, generation: UInt64) -> SinkOutcome {
        state.withLock { state in
            guard generation == state.generation else { return .stopped }
            state.frames.append((generation, head + body))
            return .queued
        }
    }

    func advance(to generation: UInt64, ack: [UInt8]) -> Int {
        state.withLock { state in
            state.generation = generation
            let before = state.frames.count
            state.frames.removeAll { $0.generation.map { $0 != generation } ?? false }
            defer { state.frames.append((nil, ack)) }
            return before - state.frames.count
        }
    }

    func close(code: UInt16, reason: String) {
        state.withLock { $0.closed = (code, reason) }
    }

    /// The close the session asked for, if any.
    var closed: (code: UInt16, reason: String)? {
        state.withLock { $0.closed }.map { (code: $0.0, reason: $0.1) }
    }

    /// Every accepted frame, decoded.
    var messages: [ServerMessage] {
        state.withLock { $0.frames }.compactMap { try? ServerMessage.decode($0.bytes) }
    }

    /// Every accepted frame, as text (frames `ServerMessage` does not know too, such as `presence`).
    var texts: [String] {
        state.withLock { $0.frames }.map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    /// Waits (up to `timeout`) until `condition` holds for the frames; returns whether it did.
    /// The bound is generous, since a wait lasts only until its condition holds: under
    /// ThreadSanitizer, while every suite starts at once, the pool can be busy for 20 s.
    func wait(within timeout: Duration = .seconds(30), until condition: ([ServerMessage]) -> Bool) async -> Bool {
        await poll(within: timeout) { condition(messages) }
    }

    /// Waits (up to `timeout`) until `condition` holds for the frames as text.
    func waitTexts(within timeout: Duration = .seconds(30), until condition: ([String]) -> Bool) async -> Bool {
        await poll(within: timeout) { condition(texts) }
    }

    private func poll(within timeout: Duration, until condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }
}
