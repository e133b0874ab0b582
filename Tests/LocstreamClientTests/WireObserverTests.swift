import Locking
import LocstreamClient
import Testing

/// What `stream-client` reads beside the updates (package access): the observer, the
/// frame and previous seq of each delivery, and the sub ids it names.
@Suite("the observer and deliveries stream-client reads", .timeLimit(.minutes(1)))
struct WireObserverTests {
    @Test(
        "the observer sees a failed connect, every frame and the close; a delivery carries its frame and the seq before"
    )
    func observer() async throws {
        let transport = ScriptedTransport(failingFirst: 1)
        let seen = Locked<[String]>([])
        var configuration = ClientConfiguration()
        configuration.reconnect = ReconnectPolicy(initial: .milliseconds(1), cap: .milliseconds(1))
        configuration.subID = { "view-\($0)" }
        configuration.keepsFrames = true
        configuration.observer = { event in
            let name =
                switch event {
                case .connectFailed: "connectFailed"
                case .received(_, .subscribed?): "subscribed"
                case .received(_, .loc?): "loc"
                case .received(let frame, nil): "unknown \(frame.count)"
                case .received: "other"
                case .closed(let code): "closed \(code.map { "\($0)" } ?? "-")"
                }
            seen.withLock { $0.append(name) }
        }
        let client = LocstreamClient(transport: transport, configuration: configuration)
        var updates = client.locations(of: ["a"]).makeAsyncIterator()
        #expect(updates.sub == "view-1")
        let first = try await updates.nextDelivery()
        #expect(first?.update.isReconnect == true, "the first connect failed")
        let connection = try #require(await transport.opened.next())
        #expect(ScriptedServerTests.sub(of: await connection.nextSent()) == "view-1")
        let (five, seven) = (ScriptedServerTests.located("a", 5), ScriptedServerTests.located("a", 7))
        connection.deliver(.subscribed(sub: "view-1", restarted: false, snapshot: 0))
        connection.deliver(bytes: Array(#"{"op":"presence","sub":"view-1","device":"a","online":true}"#.utf8))
        connection.deliver(.loc(sub: "view-1", location: five))
        connection.deliver(.loc(sub: "view-1", location: seven))
        #expect(try await updates.nextDelivery()?.update == .snapshotEnd)
        let atFive = try #require(try await updates.nextDelivery())
        let atSeven = try #require(try await updates.nextDelivery())
        #expect(atFive.update == .location(five) && atFive.previousSeq == nil)
        #expect(atFive.frame == ServerMessage.loc(sub: "view-1", location: five).encoded())
        #expect(atSeven.update == .location(seven) && atSeven.previousSeq == 5)
        connection.drop()
        #expect(try await updates.nextDelivery()?.update.isReconnect == true)
        #expect(seen.withLock { $0 } == ["connectFailed", "subscribed", "unknown 59", "loc", "loc", "closed -"])
    }
}

extension LocationUpdate {
    /// Whether this is `reconnecting`, whatever its delay.
    var isReconnect: Bool {
        if case .reconnecting = self { true } else { false }
    }
}
