import LocstreamProtocol
import WebSocketTransport

/// `stream-client publish`: sends one location with `ack:true` and waits for the answer.
struct PublishCommand: Sendable {
    /// How the wait for the answer ended.
    enum Outcome: Sendable, Equatable {
        /// `published{count}` arrived.
        case published(count: Int)
        /// An `error` frame arrived.
        case refused(ProtocolError)
        /// The connection closed first; the peer's close code, if it sent one.
        case closed(code: UInt16?)
        /// Nothing arrived in time.
        case timedOut
    }

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
        let status = await publish(with: connector)
        await connector.shutdown()
        return status
    }

    private func publish(with connector: Connector) async -> Int32 {
        let connection: WebSocketConnection
        do {
            connection = try await connector.connect()
        } catch {
            Console.error("publish: cannot connect to \(settings.connection.url): \(error)\(error.advice)")
            return ExitStatus.failure
        }
        let frame = ClientMessage.publish([settings.location], ack: true).encoded()
        connection.send(OutboundFrame(body: frame))
        let outcome = await Self.awaitReply(on: connection, timeout: settings.connection.timeout)
        switch outcome {
        case .published(let count):
            Console.out("published \(count) location for \(settings.location.device) (ts \(settings.location.ts))")
            await Connector.closeGracefully(connection)
            return ExitStatus.success
        case .refused(let error):
            Console.error("publish refused: \(error.code.rawValue): \(error.message)")
            await Connector.closeGracefully(connection)
            return ExitStatus.failure
        case .closed(let code):
            Console.error("publish: the connection closed before the server answered" + CloseText.suffix(code))
            return ExitStatus.failure
        case .timedOut:
            Console.error("publish: no answer within \(settings.connection.timeout)")
            connection.close(code: 1000)
            return ExitStatus.failure
        }
    }

    /// Reads `connection` until `published` or `error` arrives, it closes, or `timeout` passes.
    static func awaitReply(on connection: WebSocketConnection, timeout: Duration) async -> Outcome {
        await withTaskGroup(of: Outcome?.self) { group in
            group.addTask {
                for await message in connection.messages {
                    if let outcome = outcome(of: message) { return outcome }
                }
                return Task.isCancelled ? nil : .closed(code: connection.peerClose?.code)
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return Task.isCancelled ? nil : .timedOut
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .timedOut
        }
    }

    /// What a frame means for a publish waiting for its ack; nil for frames that do not answer it.
    static func outcome(of message: InboundMessage) -> Outcome? {
        switch try? ServerMessage.decode(message.bytes) {
        case .published(let count): .published(count: count)
        case .error(let error): .refused(error)
        default: nil
        }
    }
}
