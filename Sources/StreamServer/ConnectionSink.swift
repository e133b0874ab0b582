import StreamCore
import WebSocketTransport

/// A WebSocket connection as the stream domain sees it: a `FrameSink` whose
/// generation check and purge happen under the connection's outbox lock.
struct ConnectionSink: FrameSink {
    let connection: WebSocketConnection

    func sendControl(_ frame: [UInt8]) -> Bool {
        connection.send(OutboundFrame(body: frame))
    }

    func send(head: [UInt8], body: [UInt8], key: String, generation: UInt64) -> SinkOutcome {
        do {
            switch try connection.send(OutboundFrame(head: head, body: body, key: key), generation: generation) {
            case .queued: return .queued
            case .conflated(let dropped): return .conflated(dropped: dropped)
            }
        } catch .slowConsumer(let dropped) {
            return .slowConsumerClosed(dropped: dropped)
        } catch {
            return .stopped
        }
    }

    func advance(to generation: UInt64, ack: [UInt8]) -> Int {
        connection.advance(to: generation, ack: OutboundFrame(body: ack))
    }

    func close(code: UInt16, reason: String) {
        connection.close(code: code, reason: reason)
    }

    func room(for generation: UInt64) -> Int? {
        connection.room(for: generation)
    }

    func waitForRoom(for generation: UInt64) async {
        await connection.waitForRoom(for: generation)
    }

    var executor: (any TaskExecutor)? { connection.executor }
}
