import Foundation
import Locking
import LocstreamClient

/// The location sequence `subscribe` iterates, one at a time: it prints the sequence's
/// locations, says why it reconnects, and on a typed command ends it and starts the next,
/// which the library turns into a switch on the same connection. The sequence's `since`,
/// repeats and gaps are the library's; this only prints them.
final class SubscriptionRunner: Sendable {
    private let client: LocstreamClient
    private let settings: SubscribeSettings
    private let watch: WireWatch
    /// Ends the whole command with an exit status (`-C` reached, a refused token).
    private let finish: @Sendable (Int32) -> Void
    private let formatter = FrameFormatter()
    private let state = Locked(State())

    private struct State {
        var running: Task<Void, Never>?
        var stopped = false
        var sequences = 0
        /// Locations printed, over every sequence (for `-C`).
        var received = 0
    }

    /// A runner on `client`, reading `watch` for why connections failed; `finish` ends the command.
    init(
        client: LocstreamClient, settings: SubscribeSettings, watch: WireWatch,
        finish: @escaping @Sendable (Int32) -> Void
    ) {
        self.client = client
        self.settings = settings
        self.watch = watch
        self.finish = finish
    }

    /// Ends the running sequence (if any) and, unless `target` is nil or the runner has
    /// stopped, starts one for `target` once the old one has ended.
    func switchTo(_ target: SubscriptionTarget?) async {
        let old = state.withLock { state in
            defer { state.running = nil }
            return state.running
        }
        old?.cancel()
        await old?.value
        guard let target else { return }
        state.withLock { state in
            guard !state.stopped else { return }
            state.sequences += 1
            let isSwitch = state.sequences > 1
            state.running = Task { await self.follow(target, isSwitch: isSwitch) }
        }
    }

    /// Ends the running sequence; no other starts.
    func stop() async {
        state.withLock { $0.stopped = true }
        await switchTo(nil)
    }

    private func follow(_ target: SubscriptionTarget, isSwitch: Bool) async {
        let options = SubscriptionOptions(
            snapshot: settings.snapshot, minInterval: settings.minIntervalMs.map { .milliseconds($0) },
            minDistanceMeters: settings.minDistanceMeters)
        let updates =
            switch target {
            case .devices(let devices): client.locations(of: devices, options: options)
            case .area(let area): client.locations(in: area, options: options)
            }
        var iterator = updates.makeAsyncIterator()
        do {
            while let delivery = try await iterator.nextDelivery() {
                if let status = show(delivery, sub: iterator.sub) { return finish(status) }
            }
        } catch {
            if let status = ended(iterator.sub, by: error, isSwitch: isSwitch) { finish(status) }
        }
    }

    /// Prints `delivery`; returns an exit status when it ends the command.
    private func show(_ delivery: Delivery, sub: String) -> Int32? {
        let raw = delivery.frame.map { String(decoding: $0, as: UTF8.self) }
        switch delivery.update {
        case .location(let location):
            let now = StatusFrames.nowMs
            Console.out(
                settings.json
                    ? raw ?? "" : formatter.location(location, sub: sub, nowMs: now, previousSeq: delivery.previousSeq))
            let received = state.withLock { state in
                state.received += 1
                return state.received
            }
            if let count = settings.count, received >= count { return ExitStatus.success }
        case .left(let device):
            Console.out(
                settings.json
                    ? raw ?? "" : formatter.line(for: .leave(sub: sub, device: device), nowMs: StatusFrames.nowMs))
        case .snapshotEnd:
            break
        case .reconnecting(let attempt, let delay):
            return reconnecting(attempt: attempt, delay: delay)
        case .resumed(let gaps):
            Console.error("reconnected; " + FrameFormatter.resumed(sub: sub, gaps: gaps))
        }
        return nil
    }

    /// Says why the sequence reconnects, or stops the command when that cannot help: the first
    /// connect failed, or the server closed for the token (1008).
    private func reconnecting(attempt: Int, delay: Duration) -> Int32? {
        let trouble = watch.trouble
        if !watch.everConnected, case .connectFailed(let error)? = trouble {
            Console.error(
                "subscribe: cannot connect to \(settings.connection.url): \(WireWatch.Trouble.explain(error))")
            return ExitStatus.failure
        }
        if case .closed(let code)? = trouble, let refusal = TokenRefusal.message(forClose: code) {
            Console.error(refusal)
            return ExitStatus.failure
        }
        let wait = String(format: "%.1f", delay.seconds)
        Console.error("\(trouble?.description ?? "connection lost"); reconnecting in \(wait)s (attempt \(attempt))")
        return nil
    }

    /// The sequence `sub` ended with `error` (already shown from its frame); returns an exit
    /// status when the token will not do.
    private func ended(_ sub: String, by error: LocstreamError, isSwitch: Bool) -> Int32? {
        if let refused = error.serverError,
            let refusal = TokenRefusal.message(
                for: refused, hasToken: settings.connection.token != nil, isSwitch: isSwitch)
        {
            Console.error(refusal)
            return ExitStatus.failure
        }
        Console.error("\(sub) ended (\(error)); no subscription now: type 'help' for the commands")
        return nil
    }
}
