import Foundation
import LocstreamProtocol
import ProcessLifecycle
import WebSocketTransport

/// `stream-client subscribe`: prints a subscription's frames, switches it on stdin commands,
/// and reconnects and resumes when the connection drops.
struct SubscribeCommand: Sendable {
    /// What happened, as seen by the task that runs the whole command.
    private enum Event: Sendable {
        /// The stream stopped by itself, with this exit status.
        case streamEnded(Int32)
        case inputEnded
        case quit
        case signal(String)
        case deadline
    }

    /// What to subscribe to, and where.
    let settings: SubscribeSettings
    /// How long to wait between reconnects: from 0.5 s up to 30 s, jittered.
    static let backoff = Backoff(initial: .milliseconds(500), cap: .seconds(30))
    /// A connection that stayed up this long resets the attempt count.
    static let stableAfter = Duration.seconds(10)
    private let formatter = FrameFormatter()

    /// A command for `settings`.
    init(settings: SubscribeSettings) { self.settings = settings }

    /// Runs until `quit`, SIGINT or SIGTERM; returns the exit status.
    func run() async -> Int32 {
        let connector: Connector
        let first: WebSocketConnection
        do {
            connector = try await Connector.start(settings.connection)
        } catch {
            Console.error("subscribe: \(error)")
            return ExitStatus.failure
        }
        do {
            first = try await connector.connect()
        } catch {
            Console.error("subscribe: cannot connect to \(settings.connection.url): \(error)\(error.advice)")
            await connector.shutdown()
            return ExitStatus.failure
        }
        let request = SubscribeRequest(
            sub: settings.subID ?? "sub-1", target: settings.target, snapshot: settings.snapshot,
            minIntervalMs: settings.minIntervalMs, minDistanceMeters: settings.minDistanceMeters)
        let session = SubscriptionSession(plan: SubscriptionPlan(first: request, subID: settings.subID))
        var status = ExitStatus.success
        await withTaskGroup(of: Event.self) { group in
            group.addTask { .streamEnded(await stream(from: first, connector: connector, session: session)) }
            group.addTask { await readCommands(session: session) }
            group.addTask { await TerminationSignals.wait().map(Event.signal) ?? .deadline }
            if let limit = settings.exitAfter {
                group.addTask { (try? await Task.sleep(for: limit)) != nil ? .quit : .deadline }
            }
            var stopping = false
            while let event = await group.next() {
                switch event {
                case .inputEnded:
                    continue
                case .quit, .signal:
                    guard !stopping else { continue }
                    stopping = true
                    if session.quit() {
                        group.addTask {
                            try? await Task.sleep(for: .seconds(2))
                            return .deadline
                        }
                    } else {
                        group.cancelAll()
                    }
                case .streamEnded(let ended):
                    status = ended
                    group.cancelAll()
                case .deadline:
                    group.cancelAll()
                }
            }
        }
        await connector.shutdown()
        return status
    }

    /// Reads the server on `first`, then on every reconnection, until the session quits
    /// (exit status 0), `-C` locations have arrived (0), or the server refuses the token (1).
    private func stream(from first: WebSocketConnection, connector: Connector, session: SubscriptionSession) async
        -> Int32
    {
        var connection = first
        var attempt = 0
        var received = 0
        var random = SystemRandomNumberGenerator()
        while true {
            switch session.attach(connection) {
            case .quitting:
                return ExitStatus.success
            case .attached(let request) where attempt > 0:
                let resumed = request.map { request in
                    let count = request.since.count
                    return "resubscribed \(request.sub) with since for \(count) device\(count == 1 ? "" : "s")"
                }
                Console.error("reconnected; " + (resumed ?? "no subscription to resume"))
            case .attached:
                break
            }
            let opened = ContinuousClock.now
            for await message in connection.messages {
                guard let stop = handle(message, session: session, received: &received) else { continue }
                if let reason = stop.reason { Console.error(reason) }
                _ = session.quit()
                await Connector.closeGracefully(connection)
                return stop.status
            }
            session.detach()
            if session.isQuitting || Task.isCancelled { return ExitStatus.success }
            if let reason = TokenRefusal.message(forClose: connection.peerClose?.code) {
                Console.error(reason)
                return ExitStatus.failure
            }
            if opened.duration(to: .now) >= Self.stableAfter { attempt = 0 }
            var reason = "connection lost" + CloseText.suffix(connection.peerClose?.code)
            while true {
                attempt += 1
                let delay = Self.backoff.delay(attempt: attempt, jitter: Double.random(in: 0...1, using: &random))
                let wait = String(format: "%.1f", delay.seconds)
                Console.error("\(reason); reconnecting in \(wait)s (attempt \(attempt))")
                try? await Task.sleep(for: delay)
                if session.isQuitting || Task.isCancelled { return ExitStatus.success }
                do {
                    connection = try await connector.connect()
                    break
                } catch {
                    if session.isQuitting || Task.isCancelled { return ExitStatus.success }
                    reason = "reconnect failed: \(error)\(error.advice)"
                }
            }
        }
    }

    /// Why `subscribe` stops by itself: its exit status, and what to say first.
    private struct Stop {
        let status: Int32
        let reason: String?
    }

    /// Prints one frame (raw with `--json`, else as a readable line) and tracks its seq;
    /// `received` counts the locations. Returns why to stop, if this frame ends the run.
    private func handle(_ message: InboundMessage, session: SubscriptionSession, received: inout Int) -> Stop? {
        if settings.json { Console.out(message.text) }
        let decoded: ServerMessage
        do {
            decoded = try ServerMessage.decode(message.bytes)
        } catch {
            // Ops added to the protocol later are skipped, as PROTOCOL.md allows extensions.
            if error.code != .unknownOp || settings.connection.verbose {
                Console.error("unreadable frame (\(error)): \(message.text.prefix(200))")
            }
            return nil
        }
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        switch decoded {
        case .loc(let sub, let location):
            let previous = session.record(sub: sub, location: location)
            if !settings.json {
                Console.out(formatter.location(location, sub: sub, nowMs: now, previousSeq: previous))
            }
            received += 1
            if let count = settings.count, received >= count { return Stop(status: ExitStatus.success, reason: nil) }
        case .error(let error):
            Console.error(FrameFormatter.error(error))
            let running = error.failedOp == "subscribe" ? session.refused() : nil
            if let running { Console.error("still subscribed as \(running.sub)") }
            let refusal = TokenRefusal.message(
                for: error, hasToken: settings.connection.token != nil, stillSubscribed: running != nil)
            if let refusal { return Stop(status: ExitStatus.failure, reason: refusal) }
        case .subscribed(let sub, _, _):
            session.confirmed(sub: sub)
            if !settings.json { Console.error(formatter.line(for: decoded, nowMs: now)) }
        case .welcome:
            if settings.connection.verbose { Console.error(formatter.line(for: decoded, nowMs: now)) }
        case .leave:
            if !settings.json { Console.out(formatter.line(for: decoded, nowMs: now)) }
        default:
            // Status (unsubscribed, authed, pong…) goes to stderr; stdout is for locations.
            if !settings.json { Console.error(formatter.line(for: decoded, nowMs: now)) }
        }
        return nil
    }

    /// Applies stdin commands until `quit` (returns `.quit`) or the end of input (`.inputEnded`).
    private func readCommands(session: SubscriptionSession) async -> Event {
        for await line in StandardInputLines.stream() {
            let command: StdinCommand?
            do {
                command = try StdinCommand.parse(line)
            } catch {
                Console.error(error.description)
                continue
            }
            switch command {
            case nil:
                continue
            case .quit:
                return .quit
            case .help:
                Console.error(StdinCommand.usage)
            case .subscribe, .unsubscribe:
                if let command, !session.apply(command).sent {
                    Console.error("not connected: the change is sent when the connection is back")
                }
            }
        }
        return .inputEnded
    }
}
