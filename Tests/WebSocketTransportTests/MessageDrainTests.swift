import Locking
import TestSupport
import Testing

@testable import WebSocketTransport

/// The task that answers a server connection's messages only while some are queued:
/// order, parking between bursts, and `end` called once on every way a connection ends.
@Suite("message drain")
struct MessageDrainTests {
    /// How long a drain may take to run: it is a task on Swift's pool, which in the
    /// parallel part of a `make tsan` run has kept tasks waiting for more than 15 s while
    /// unit tests that take milliseconds took 18.
    private static let patience = Duration.seconds(90)

    /// A channel with `handler` parked, as `ServerLoop.open` leaves a new connection.
    private func parkedChannel(_ handler: sending RecordingHandler) -> ConnectionChannel {
        let channel = ConnectionChannel(id: ConnectionID(1), request: UpgradeRequest()) { _ in }
        channel.park(handler)
        return channel
    }

    /// What `LiveSocket.receive` does with a message on the server side.
    private func receive(_ text: String, on channel: ConnectionChannel) {
        channel.inbound.withLock { queue in
            let (_, handler) = queue.deliver(InboundMessage(bytes: Array(text.utf8)))
            if let handler { queue.drain = MessageDrain.start(handler.parcel, at: handler.priority, on: channel) }
        }
    }

    @Test("messages are answered in order; the handler parks between bursts, and the next message starts a drain")
    func orderAndParking() async {
        let log = Locked<[String]>([])
        let channel = parkedChannel(RecordingHandler(log: log))
        for index in 0..<50 { receive("m\(index)", on: channel) }
        #expect(await eventually(within: Self.patience) { log.withLock { $0.count } == 50 })
        #expect(await eventually(within: Self.patience) { channel.inbound.withLock { $0.drain == nil } })
        receive("later", on: channel)
        #expect(await eventually(within: Self.patience) { log.withLock { $0.count } == 51 })
        #expect(log.withLock { $0 } == (0..<50).map { "m\($0)" } + ["later"])
        channel.finishInbound()
        #expect(log.withLock { $0.last } == "end")
    }

    @Test("messages are answered at the handler's priority; when it lowers, a new drain answers the rest at it")
    func priority() async {
        let log = Locked<[String]>([])
        let gate = OneShot<Void>()
        let channel = parkedChannel(RecordingHandler(log: log, gate: gate, logsPriority: true))
        receive("lower", on: channel)
        receive("waiting", on: channel)
        #expect(await eventually(within: Self.patience) { log.withLock { $0 } == ["lower@high"] })
        gate.fulfil(())
        #expect(await eventually(within: Self.patience) { log.withLock { $0.count } == 2 })
        #expect(log.withLock { $0 } == ["lower@high", "waiting@medium"], "a task's priority is fixed: a new drain")
        #expect(await eventually(within: Self.patience) { channel.inbound.withLock { $0.drain == nil } })
        receive("parked", on: channel)
        #expect(await eventually(within: Self.patience) { log.withLock { $0.count } == 3 })
        #expect(log.withLock { $0.last } == "parked@medium", "the next drain starts at the parked priority")
        #expect(await eventually(within: Self.patience) { channel.inbound.withLock { $0.drain == nil } })
        channel.finishInbound()
        #expect(log.withLock { $0.last } == "end")
    }

    @Test("a connection that closes while a message is answered: the drain is cancelled and ends the handler once")
    func closeWhileAnswering() async {
        let log = Locked<[String]>([])
        let gate = OneShot<Void>()
        let channel = parkedChannel(RecordingHandler(log: log, gate: gate))
        receive("slow", on: channel)
        receive("never", on: channel)
        #expect(await eventually(within: Self.patience) { log.withLock { $0 } == ["slow"] })
        channel.finishInbound()
        #expect(log.withLock { $0 } == ["slow"], "the running drain ends the handler, not the close")
        gate.fulfil(())
        #expect(await eventually(within: Self.patience) { log.withLock { $0 } == ["slow", "end"] })
        #expect(channel.inbound.withLock { $0.takeParkedHandler() } == nil)
    }

    @Test("a handler that answers false is ended, its connection closes with 1000, and later messages start nothing")
    func handlerCloses() async {
        let log = Locked<[String]>([])
        let channel = parkedChannel(RecordingHandler(log: log))
        receive("close", on: channel)
        #expect(await eventually(within: Self.patience) { log.withLock { $0 } == ["close", "end"] })
        #expect(channel.outbox.withLock { $0.pendingClose?.code } == 1000)
        let starts = channel.inbound.withLock { $0.deliver(InboundMessage(bytes: Array("after".utf8))).handler != nil }
        #expect(!starts, "no handler is parked, so a later message starts no drain")
        channel.finishInbound()
        #expect(log.withLock { $0 } == ["close", "end"], "ended once")
    }
}

/// Logs each message it answers (with the drain's priority, if asked), then `end`; waits
/// for `gate` on its first message (even when cancelled), answers false to "close", and lowers its priority to
/// `.medium` on "lower".
private final class RecordingHandler: MessageHandler {
    private let log: Locked<[String]>
    private let gate: OneShot<Void>?
    private let logsPriority: Bool
    private(set) var answerPriority = TaskPriority.high

    init(log: Locked<[String]>, gate: OneShot<Void>? = nil, logsPriority: Bool = false) {
        self.log = log
        self.gate = gate
        self.logsPriority = logsPriority
    }

    func handle(_ message: InboundMessage) async -> Bool {
        let text = String(decoding: message.bytes, as: UTF8.self)
        let priority = Task.basePriority == .high ? "high" : Task.basePriority == .medium ? "medium" : "other"
        log.withLock { $0.append(logsPriority ? "\(text)@\(priority)" : text) }
        if text == "lower" { answerPriority = .medium }
        // In a task of its own, which the drain's cancellation does not reach: the handler
        // keeps answering until the gate opens, whatever happens to the connection.
        if let gate { _ = await Task { await gate.value() }.value }
        return text != "close"
    }

    func end() {
        log.withLock { $0.append("end") }
    }
}
