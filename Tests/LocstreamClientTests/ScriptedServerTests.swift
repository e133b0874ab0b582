import LocstreamClient
import Testing

/// The client against a scripted server: what it sends, and what it makes of each answer.
@Suite("client against a scripted server", .timeLimit(.minutes(1)))
struct ScriptedServerTests {
    let transport = ScriptedTransport()

    static func located(_ device: String, _ seq: UInt64) -> Location {
        Location(device: device, lat: 1, lon: 2, ts: 3, seq: seq)
    }

    /// A client on `transport` whose reconnects wait a millisecond at most.
    static func client(
        _ transport: ScriptedTransport, switchWindow: Duration = .milliseconds(1), bufferLimit: Int = 4096,
        tokens: ClientConfiguration.TokenProvider? = nil
    ) -> LocstreamClient {
        var configuration = ClientConfiguration(tokenProvider: tokens)
        configuration.bufferLimit = bufferLimit
        configuration.reconnect = ReconnectPolicy(initial: .milliseconds(1), cap: .milliseconds(1))
        configuration.switchWindow = switchWindow
        return LocstreamClient(transport: transport, configuration: configuration)
    }

    /// The `sub` of `message`, which must be a subscribe.
    static func sub(of message: ClientMessage?) -> String? {
        if case .subscribe(let request)? = message { request.sub } else { nil }
    }

    /// Runs a sequence of device `a` on `client` through its opening, the scripted server
    /// answering its subscribe with `answer(sub)`; the sequence ends once the opening is over.
    func openedSequence(of client: LocstreamClient, answer: (String) -> [ServerMessage]) async throws
        -> (ScriptedConnection, String, [LocationUpdate])
    {
        let opening = Task { try await client.locations(of: ["a"]).collect(until: \.endsOpening) }
        let connection = try #require(await transport.opened.next())
        let sub = try #require(Self.sub(of: await connection.nextSent()))
        for frame in answer(sub) { connection.deliver(frame) }
        return (connection, sub, try await opening.value)
    }

    @Test(
        "a refused subscribe ends the sequence with the typed error of its code",
        arguments: [ErrorCode.forbidden, .badRequest, .unauthorized, .subIdReused, .tooLarge, .rateLimited, .internal])
    func refusals(code: ErrorCode) async throws {
        let client = Self.client(transport)
        var updates = client.locations(of: ["a"]).makeAsyncIterator()
        let reading = Task { try await updates.next() }
        let connection = try #require(await transport.opened.next())
        let sub = try #require(Self.sub(of: await connection.nextSent()))
        let refusal = ProtocolError(code, "no", failedOp: "subscribe")
        connection.deliver(.error(refusal))
        let expected: LocstreamError =
            switch code {
            case .forbidden: .forbidden(refusal)
            case .unauthorized: .unauthorized(refusal)
            case .rateLimited, .internal: .refused(refusal)
            default: .badRequest(refusal)
            }
        await #expect(throws: expected, "\(sub)") { try await reading.value }
    }

    @Test("the next sequence switches the connection; a late frame of the old sub never reaches it")
    func switchWithoutStaleFrame() async throws {
        // A switch window long enough that the next sequence comes first however loaded the machine.
        let client = Self.client(transport, switchWindow: .seconds(30))
        let (connection, firstSub, opening) = try await openedSequence(of: client) { sub in
            [.subscribed(sub: sub, restarted: false, snapshot: 1), .loc(sub: sub, location: Self.located("a", 1))]
        }
        #expect(opening == [.location(Self.located("a", 1)), .snapshotEnd])

        let second = Task { try await client.locations(of: ["b"]).collect { $0.location != nil } }
        let secondSub = try #require(Self.sub(of: await connection.nextSent()), "a subscribe on the same connection")
        #expect(secondSub != firstSub)
        connection.deliver(.loc(sub: firstSub, location: Self.located("a", 2)))
        connection.deliver(.subscribed(sub: secondSub, restarted: true, snapshot: 0))
        connection.deliver(.loc(sub: firstSub, location: Self.located("a", 3)))
        connection.deliver(.loc(sub: secondSub, location: Self.located("b", 7)))
        #expect(try await second.value == [.snapshotEnd, .location(Self.located("b", 7))])
    }

    @Test("an ended sequence's connection sends unsubscribe once the switch window has passed")
    func unsubscribeAfterWindow() async throws {
        let client = Self.client(transport)
        let (connection, _, opening) = try await openedSequence(of: client) { sub in
            [.subscribed(sub: sub, restarted: false, snapshot: 0)]
        }
        #expect(opening == [.snapshotEnd])
        #expect(await connection.nextSent() == .unsubscribe)
    }

    @Test("a dropped connection: reconnecting, a subscribe with since, the replay, resumed with its gaps")
    func resume() async throws {
        let client = Self.client(transport)
        var updates = client.locations(of: ["a", "b"]).makeAsyncIterator()
        let first = try #require(await transport.opened.next())
        let sub = try #require(Self.sub(of: await first.nextSent()))
        first.deliver(.subscribed(sub: sub, restarted: false, snapshot: 2))
        first.deliver(.loc(sub: sub, location: Self.located("a", 5)))
        first.deliver(.loc(sub: sub, location: Self.located("b", 8)))
        #expect(try await updates.collect(until: \.endsOpening).count == 3)
        first.drop()
        let lost = try await updates.next()
        guard case .reconnecting(attempt: 1, _)? = lost else {
            Issue.record("expected the first reconnect, got \(String(describing: lost))")
            return
        }

        let second = try #require(await transport.opened.next())
        guard case .subscribe(let request)? = await second.nextSent() else {
            Issue.record("expected a subscribe on the new connection")
            return
        }
        #expect(request.sub == sub && request.since == ["a": 5, "b": 8])
        second.deliver(.subscribed(sub: sub, restarted: false, snapshot: 3))
        for location in [Self.located("a", 5), Self.located("a", 6), Self.located("b", 11)] {
            second.deliver(.loc(sub: sub, location: location))
        }
        let resumed = try await updates.collect(until: \.endsOpening)
        #expect(
            resumed == [
                .location(Self.located("a", 6)), .location(Self.located("b", 11)),
                .resumed(gaps: ["b": SeqGap(lastSeen: 8, next: 11)]),
            ], "the repeat of a:5 is dropped, and the server's count of 3 still ends the replay")
    }

    @Test("failed connects back off, attempt after attempt, and a token is asked for before each")
    func backoff() async throws {
        let transport = ScriptedTransport(failingFirst: 2)
        let tokens = Mailbox<Int>()
        let counter = Counter()
        let client = Self.client(transport) {
            let call = counter.increment()
            tokens.post(call)
            return "token-\(call)"
        }
        var updates = client.locations(of: ["a"]).makeAsyncIterator()
        let waits = [try await updates.next(), try await updates.next()]
        for (index, wait) in waits.enumerated() {
            guard case .reconnecting(let attempt, let delay)? = wait else {
                Issue.record("expected reconnecting, got \(String(describing: wait))")
                continue
            }
            #expect(attempt == index + 1)
            #expect(delay >= .microseconds(500) && delay <= .milliseconds(1), "the upper half of the ceiling")
        }
        let connection = try #require(await transport.opened.next())
        #expect(connection.token == "token-3")
        #expect(await [tokens.next(), tokens.next(), tokens.next()] == [1, 2, 3])
    }

    @Test("token expiring: the provider's fresh token goes out with auth on the same connection")
    func refresh() async throws {
        let counter = Counter()
        let client = Self.client(transport) { "token-\(counter.increment())" }
        let watching = Task { for try await _ in client.locations(of: ["a"]) {} }
        defer { watching.cancel() }
        let connection = try #require(await transport.opened.next())
        #expect(connection.token == "token-1")
        _ = await connection.nextSent()
        connection.deliver(.error(ProtocolError(.unauthorized, "token expiring")))
        #expect(await connection.nextSent() == .auth(token: "token-2"))
    }
}

extension ScriptedServerTests {
    @Test("publish: the seqs of the ack, in order; a refusal typed; no connection is cannotConnect")
    func publish() async throws {
        let transport = ScriptedTransport(failingFirst: 1)
        let client = Self.client(transport)
        await #expect(throws: LocstreamError.cannotConnect("refused")) {
            try await client.publish([Self.located("a", 0)])
        }
        let locations = [Self.located("a", 0), Self.located("b", 0)]
        let accepted = Task { try await client.publish(locations) }
        let connection = try #require(await transport.opened.next())
        #expect(await connection.nextSent() == .publish(locations, ack: true))
        connection.deliver(bytes: PublishAck(seqs: [12, 40]).encoded())
        #expect(try await accepted.value == [12, 40])

        let refused = Task { try await client.publish(locations) }
        _ = await connection.nextSent()
        let refusal = ProtocolError(.forbidden, "no", failedOp: "publish")
        connection.deliver(.error(refusal))
        await #expect(throws: LocstreamError.forbidden(refusal)) { try await refused.value }
    }
}

extension ScriptedServerTests {
    @Test("a full buffer stops the reading until the iterator takes; every location still comes, in order")
    func backpressure() async throws {
        let limit = 4
        let client = Self.client(transport, bufferLimit: limit)
        var updates = client.locations(of: ["a"]).makeAsyncIterator()
        let connection = try #require(await transport.opened.next())
        let sub = try #require(Self.sub(of: await connection.nextSent()))
        connection.deliver(.subscribed(sub: sub, restarted: false, snapshot: 0))
        for seq in 1...50 { connection.deliver(.loc(sub: sub, location: Self.located("a", UInt64(seq)))) }
        // Whatever the reader's pace, it must stop at the limit and stay there: a correct
        // reader passes whenever this looks; a reader that runs on is caught once it has had
        // 20 ms to do so.
        while connection.received < limit { await Task.yield() }
        try await Task.sleep(for: .milliseconds(20))
        #expect(connection.received == limit, "the reader stops once \(limit) updates wait")
        var taken: [LocationUpdate] = []
        while taken.count < 51, let update = try await updates.next() {
            taken.append(update)
            // A frame is read, then the reader waits while `limit` updates are buffered.
            #expect(connection.received <= taken.count + limit, "read ahead of the iterator by more than the limit")
        }
        #expect(taken == [.snapshotEnd] + (1...50).map { .location(Self.located("a", UInt64($0))) })
    }
}
