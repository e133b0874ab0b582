import Auth
import Foundation
import LocstreamProtocol
import Observability
import StreamCore
import Testing

/// The per-connection rules of `StreamSession`, without a socket and without real
/// sleeps: the token timers wait on a `ManualClock` that each test moves by hand.
@Suite("stream session")
struct StreamSessionTests {
    let broker = LocalBroker(historySize: 10)
    let sink = RecordingSink()
    let clock = ManualClock()
    let metrics = StreamMetrics(registry: MetricsRegistry())

    /// A session on a node that accepts the tokens `"a-and-b"` (devices `a`, `b`),
    /// `"b-only"` (device `b`) and `"short"` (device `a`, 10 s left); each but `short`
    /// expires 60 s after the clock's start. Authentication times out after 5 s; the
    /// warning goes 30 s before expiry; no leeway.
    private func session(errorBudget: Double = 20) -> StreamSession {
        sessionOnNode(errorBudget: errorBudget).session
    }

    /// `session`, with the node it runs on.
    private func sessionOnNode(errorBudget: Double = 20) -> (session: StreamSession, node: Node) {
        let start = clock.now
        let tokens: [String: Claims] = [
            "a-and-b": Claims(subject: "alice", expiresAt: start + 60, devicePatterns: ["a", "b"]),
            "b-only": Claims(subject: "alice", expiresAt: start + 60, devicePatterns: ["b"]),
            "short": Claims(subject: "alice", expiresAt: start + 10, devicePatterns: ["a"]),
        ]
        let authentication = TokenAuthentication(
            timeout: .seconds(5), warningLead: .seconds(30), leeway: .zero
        ) { token, _ throws(AuthError) in
            guard let claims = tokens[token] else { throw AuthError(.badSignature, "not a test token") }
            return claims
        }
        var limits = SessionLimits()
        limits.errorBudget = errorBudget
        let node = Node(
            name: "test", broker: broker, metrics: metrics, logger: Logger(component: "stream"),
            limits: limits, access: .tokens(authentication), clock: clock)
        return (StreamSession(connectionID: "1", peer: "127.0.0.1", sink: sink, node: node), node)
    }

    private func send(_ message: ClientMessage, to session: StreamSession) async -> Bool {
        await session.handle(message.encoded(), isBinary: false)
    }

    private var errors: [ProtocolError] {
        sink.messages.compactMap { if case .error(let error) = $0 { error } else { nil } }
    }

    @Test("a connection with no valid token is closed with 1008 when the auth timeout runs out")
    func authTimeout() async {
        let session = session()
        #expect(session.open(upgradeToken: nil))
        #expect(await clock.waitForSleepers())
        clock.advance(by: .seconds(4.9))
        #expect(clock.sleeping == 1)
        #expect(sink.closed == nil)
        clock.advance(by: .milliseconds(100))
        #expect(await sink.wait { _ in sink.closed != nil })
        #expect(sink.closed?.code == 1008)
        #expect(sink.closed?.reason == "no valid token in time")
        session.close()
    }

    @Test("a valid token in time stops the auth timeout")
    func tokenInTime() async {
        let (session, node) = sessionOnNode()
        #expect(session.open(upgradeToken: nil))
        #expect(node.timers.count == 1)
        #expect(await send(.auth(token: "a-and-b"), to: session))
        #expect(sink.messages.contains(.authed(client: "alice", exp: Int64(clock.now.timeIntervalSince1970) + 60)))
        // The deadline is cancelled; the expiry's warning and close are scheduled.
        #expect(node.timers.count == 2)
        #expect(await clock.waitForSleepers())
        clock.advance(by: .seconds(6))
        // The node's timer task woke at the cancelled deadline and sleeps on to the warning.
        #expect(await clock.waitForSleepers())
        #expect(sink.closed == nil)
        #expect(node.timers.count == 2)
        session.close()
        #expect(node.timers.count == 0)
    }

    @Test("the expiry warning goes out warningLead before exp, the 1008 close at exp")
    func expiry() async {
        let session = session()
        #expect(session.open(upgradeToken: "a-and-b"))
        #expect(await clock.waitForSleepers())
        clock.advance(by: .seconds(29))
        #expect(errors.isEmpty)
        clock.advance(by: .seconds(1))
        #expect(await sink.wait { _ in errors.map(\.message) == ["token expiring"] })
        #expect(errors.first?.code == .unauthorized)
        #expect(sink.closed == nil)
        #expect(await clock.waitForSleepers())
        clock.advance(by: .seconds(29))
        #expect(sink.closed == nil)
        clock.advance(by: .seconds(1))
        #expect(await sink.wait { _ in sink.closed != nil })
        #expect(sink.closed?.code == 1008)
        #expect(sink.closed?.reason == "token expired")
        session.close()
    }

    @Test("a token with less than the warning lead left is warned at once, after authed")
    func shortToken() async {
        let session = session()
        #expect(session.open(upgradeToken: nil))
        #expect(await send(.auth(token: "short"), to: session))
        #expect(await sink.wait { _ in errors.map(\.message) == ["token expiring"] })
        let ops = sink.messages.map { message -> String in
            switch message {
            case .authed: "authed"
            case .error: "error"
            default: "other"
            }
        }
        #expect(ops.filter { $0 != "other" } == ["authed", "error"])
        session.close()
    }

    @Test("a refresh keeps the token's timers fresh: the old expiry no longer closes")
    func refreshRestartsWatch() async {
        let (session, node) = sessionOnNode()
        #expect(session.open(upgradeToken: "short"))
        #expect(await clock.waitForSleepers())
        #expect(await send(.auth(token: "a-and-b"), to: session))
        // The old watch is cancelled; only the new one's warning and close are left.
        #expect(node.timers.count == 2)
        clock.advance(by: .seconds(11))
        #expect(await clock.waitForSleepers())
        #expect(sink.closed == nil)
        #expect(errors.map(\.message) == ["token expiring"])
        session.close()
    }

    @Test("a refresh with fewer rights ends the subscription it no longer covers")
    func refreshWithFewerRights() async {
        let session = session()
        #expect(session.open(upgradeToken: "a-and-b"))
        let subscribe = ClientMessage.subscribe(
            SubscribeRequest(sub: "S", target: .devices(["a"]), snapshot: false, since: [:]))
        #expect(await send(subscribe, to: session))
        #expect(sink.messages.contains(.subscribed(sub: "S", restarted: false, snapshot: 0)))
        #expect(await send(.auth(token: "b-only"), to: session))
        #expect(
            sink.messages.suffix(2) == [
                .authed(client: "alice", exp: Int64(clock.now.timeIntervalSince1970) + 60), .unsubscribed(sub: "S"),
            ])
        #expect(await send(subscribe, to: session))
        #expect(errors.last?.code == .forbidden)
        session.close()
    }

    @Test("a refused refresh keeps the old token and its subscription")
    func refusedRefresh() async {
        let session = session()
        #expect(session.open(upgradeToken: "a-and-b"))
        #expect(await send(.auth(token: "forged"), to: session))
        #expect(errors.last?.code == .unauthorized)
        #expect(errors.last?.failedOp == "auth")
        #expect(metrics.authFailures["bad_signature"]?.count == 1)
        #expect(await send(.ping(t: nil), to: session))
        #expect(await send(.unsubscribe, to: session))
        #expect(errors.last?.code == .notSubscribed)
        session.close()
    }

    @Test("ops before a token are refused as unauthorized, counted as missing")
    func opsBeforeToken() async {
        let session = session()
        #expect(session.open(upgradeToken: nil))
        #expect(await send(.unsubscribe, to: session))
        #expect(errors.last?.code == .unauthorized)
        #expect(metrics.authFailures["missing"]?.count == 1)
        session.close()
    }

    /// Sends `count` bad requests to `session`; true if it stayed open after each.
    private func sendBadRequests(_ count: Int, to session: StreamSession) async -> Bool {
        var open = true
        for _ in 0..<count { open = await session.handle(Array("not json".utf8), isBinary: false) && open }
        return open
    }

    @Test("bad requests spend the error budget; the one past it closes with 1008")
    func errorBudget() async {
        let session = session(errorBudget: 3)
        #expect(session.open(upgradeToken: "a-and-b"))
        #expect(await sendBadRequests(3, to: session))
        #expect(sink.closed == nil)
        #expect(await sendBadRequests(1, to: session) == false)
        #expect(sink.closed?.code == 1008)
        #expect(sink.closed?.reason == "too many bad requests")
        #expect(metrics.errorBudgetClosed.count == 1)
        session.close()
    }

    @Test("the error budget refills at one bad request per second of the node's clock")
    func errorBudgetRefills() async {
        let session = session(errorBudget: 2)
        #expect(session.open(upgradeToken: "a-and-b"))
        #expect(await sendBadRequests(2, to: session))
        clock.advance(by: .milliseconds(999))
        #expect(await sendBadRequests(1, to: session) == false, "not a whole second yet")
        session.close()

        let refilled = self.session(errorBudget: 2)
        #expect(refilled.open(upgradeToken: "a-and-b"))
        #expect(await sendBadRequests(2, to: refilled))
        clock.advance(by: .seconds(1))
        #expect(await sendBadRequests(1, to: refilled), "one second refilled one")
        #expect(await sendBadRequests(1, to: refilled) == false)
        refilled.close()
    }
}
