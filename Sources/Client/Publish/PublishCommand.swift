import LocstreamClient

/// `stream-client publish`: publishes one location through `LocstreamClient` and waits for
/// its ack.
struct PublishCommand: Sendable {
    /// How the publish ended: the seqs, the library's error, or nil when no answer came in time.
    typealias Outcome = Result<[UInt64], LocstreamError>?

    /// What to publish, and where.
    let settings: PublishSettings

    /// Publishes; returns the exit status.
    func run() async -> Int32 {
        let connector: Connector
        do {
            connector = try await Connector.start(settings.connection)
        } catch {
            Console.error("publish: \(error)")
            return ExitStatus.failure
        }
        let client = connector.locstreamClient()
        let location = settings.location
        let outcome = await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                do throws(LocstreamError) {
                    return .success(try await client.publish([location]))
                } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                try? await Task.sleep(for: settings.connection.timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        let (line, succeeded) = Self.report(outcome, settings: settings)
        if succeeded { Console.out(line) } else { Console.error(line) }
        client.closeIdleConnections()
        await connector.shutdown()
        return succeeded ? ExitStatus.success : ExitStatus.failure
    }

    /// The line that reports `outcome`, and whether the publish succeeded.
    static func report(_ outcome: Outcome, settings: PublishSettings) -> (line: String, succeeded: Bool) {
        switch outcome {
        case .success(let seqs)?:
            ("published \(seqs.count) location for \(settings.location.device) (ts \(settings.location.ts))", true)
        case .failure(.cannotConnect(let why))?:
            ("publish: cannot connect to \(settings.connection.url): \(why)", false)
        case .failure(.connectionLost)?:
            ("publish: the connection closed before the server answered", false)
        case .failure(let error)?:
            (
                "publish refused: " + (error.serverError.map { "\($0.code.rawValue): \($0.message)" } ?? "\(error)"),
                false
            )
        case nil:
            ("publish: no answer within \(settings.connection.timeout)", false)
        }
    }
}
