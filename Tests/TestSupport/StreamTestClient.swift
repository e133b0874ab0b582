import Foundation
import LocstreamProtocol
import Testing
import WebSocketTransport

/// A protocol-speaking test client on the project's lws client: it sends
/// `ClientMessage`s and reads `ServerMessage`s, with a timeout on every read so a
/// missing frame fails the test instead of hanging it.
package final class StreamTestClient {
    package let connection: WebSocketConnection
    /// The `welcome` frame's connection id.
    package private(set) var connectionID = ""
    /// The `welcome` frame as it was sent.
    package private(set) var welcomeText = ""
    private var iterator: InboundMessages.Iterator
    private var early: [InboundMessage] = []

    /// Connects to `url` and reads the `welcome` frame.
    package init(_ client: WebSocketClient, url: String, options: ClientConnectOptions = ClientConnectOptions())
        async throws
    {
        connection = try await client.connect(to: url, options: options)
        iterator = connection.messages.makeAsyncIterator()
        guard let first = await nextRaw(), case .welcome(let conn, _)? = try? ServerMessage.decode(first.bytes) else {
            throw TestClientError.noWelcome
        }
        connectionID = conn
        welcomeText = String(decoding: first.bytes, as: UTF8.self)
    }

    /// Sends `message`.
    package func send(_ message: ClientMessage) {
        connection.send(OutboundFrame(body: message.encoded()))
    }

    /// Sends `text` as it is, valid or not.
    package func send(raw text: String) {
        connection.send(OutboundFrame(text: text))
    }

    /// The next frame, decoded; nil on timeout or when the connection ends.
    /// Frames of ops added later (`presence`, `cells`) are skipped, as a v1 client skips them.
    package func next(within timeout: Duration = .seconds(5)) async -> ServerMessage? {
        let deadline = ContinuousClock.now + timeout
        while let message = await nextRaw(within: deadline - ContinuousClock.now) {
            do {
                return try ServerMessage.decode(message.bytes)
            } catch  where error.code == .unknownOp {
                continue
            } catch {
                return nil
            }
        }
        return nil
    }

    /// The next frame, which must be an `error`: records an issue and returns nil otherwise.
    package func nextError(within timeout: Duration = .seconds(5), sourceLocation: SourceLocation = #_sourceLocation)
        async
        -> ProtocolError?
    {
        let frame = await next(within: timeout)
        guard case .error(let error)? = frame else {
            Issue.record("expected an error frame, got \(String(describing: frame))", sourceLocation: sourceLocation)
            return nil
        }
        return error
    }

    /// The next message as received; nil on timeout or at the end.
    package func nextRaw(within timeout: Duration = .seconds(5)) async -> InboundMessage? {
        if !early.isEmpty { return early.removeFirst() }
        // Most reads find a message waiting: take it without a timer and two child tasks.
        if let ready = iterator.nextIfReady() { return ready }
        let reader = iterator
        let results = await withTaskGroup(of: InboundMessage?.self) { group in
            group.addTask {
                var reader = reader
                return await reader.next()
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            var results: [InboundMessage] = []
            if let first = await group.next() ?? nil { results.append(first) }
            group.cancelAll()
            for await result in group { if let result { results.append(result) } }
            return results
        }
        // A message that raced the timeout is kept, not lost.
        early += results.dropFirst()
        return results.first
    }

    /// Frames until one satisfies `isLast` (included), or nil on timeout.
    package func collect(until isLast: (ServerMessage) -> Bool, within timeout: Duration = .seconds(10)) async
        -> [ServerMessage]?
    {
        var frames: [ServerMessage] = []
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let frame = await next(within: deadline - ContinuousClock.now) else { return nil }
            frames.append(frame)
            if isLast(frame) { return frames }
        }
        return nil
    }

    package enum TestClientError: Error { case noWelcome }
}

/// A location for tests.
package func testLocation(_ device: String, lat: Double = 52.5, lon: Double = 13.4, ts: Int64 = 1_764_421_200_000)
    -> Location
{
    Location(device: device, lat: lat, lon: lon, ts: ts)
}

/// A devices subscription for tests.
package func subscribe(_ sub: String, _ devices: [String], snapshot: Bool = true, since: [String: UInt64] = [:])
    -> ClientMessage
{
    .subscribe(SubscribeRequest(sub: sub, target: .devices(devices), snapshot: snapshot, since: since))
}
