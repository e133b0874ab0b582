import LocstreamClient
import LocstreamProtocol
import ProcessLifecycle

/// `stream-client subscribe`, on `LocstreamClient`: prints a subscription's frames, switches
/// it on stdin commands (each a new sequence, which the library sends as a switch on the same
/// connection), and reconnects and resumes with `since` when the connection drops.
struct SubscribeCommand: Sendable {
    /// What ends the command.
    private enum Event: Sendable {
        /// With this exit status (`-C` reached, a refused token, a failed first connect).
        case finished(Int32)
        case inputEnded
        case quit
        case signal(String)
    }

    /// What to subscribe to, and where.
    let settings: SubscribeSettings
    /// How long to wait between reconnects: from 0.5 s up to 30 s, jittered.
    static let backoff = ReconnectPolicy(initial: .milliseconds(500), cap: .seconds(30))

    /// Runs until `quit`, SIGINT or SIGTERM, `-C` or `-W`; returns the exit status.
    func run() async -> Int32 {
        let signals = await TerminationSignals.caughtInTask()
        let connector: Connector
        do {
            connector = try await Connector.start(settings.connection)
        } catch {
            Console.error("subscribe: \(error)")
            return ExitStatus.failure
        }
        let (events, post) = AsyncStream.makeStream(of: Event.self)
        let watch = WireWatch()
        let client = connector.locstreamClient(configuration: configuration(watch: watch))
        let runner = SubscriptionRunner(client: client, settings: settings, watch: watch) {
            post.yield(.finished($0))
        }
        await runner.switchTo(settings.target)
        let waiting: [Task<Void, Never>] = [
            Task { post.yield(await readCommands(runner: runner)) },
            Task { if let name = await signals.value { post.yield(.signal(name)) } },
            Task {
                guard let limit = settings.exitAfter, (try? await Task.sleep(for: limit)) != nil else { return }
                post.yield(.quit)
            },
        ]
        var status = ExitStatus.success
        for await event in events {
            if case .inputEnded = event { continue }
            if case .finished(let ended) = event { status = ended }
            break
        }
        signals.cancel()
        for task in waiting { task.cancel() }
        await runner.stop()
        client.closeIdleConnections()
        await connector.shutdown()
        return status
    }

    /// The library's settings for `subscribe`: ids `sub-1`, `sub-2`… (or `--sub`, then
    /// `SUB-2`…), the reconnect waits, a connection kept while no sequence runs (`unsub`), and
    /// the observer that prints status frames and remembers why a connection failed.
    private func configuration(watch: WireWatch) -> ClientConfiguration {
        var configuration = ClientConfiguration()
        configuration.reconnect = Self.backoff
        configuration.idleTimeout = .seconds(86_400)
        configuration.keepsFrames = settings.json
        let (first, prefix) = (settings.subID ?? "sub-1", settings.subID ?? "sub")
        configuration.subID = { number in number == 1 ? first : "\(prefix)-\(number)" }
        let status = StatusFrames(json: settings.json, verbose: settings.connection.verbose)
        configuration.observer = { event in
            watch.note(event)
            if case .received(let frame, let message) = event { status.show(frame, message: message) }
        }
        return configuration
    }

    /// Applies stdin commands until `quit` (returns `.quit`) or the end of input (`.inputEnded`).
    private func readCommands(runner: SubscriptionRunner) async -> Event {
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
            case .subscribe(let target):
                await runner.switchTo(target)
            case .unsubscribe:
                await runner.switchTo(nil)
            }
        }
        return .inputEnded
    }
}
