import LocstreamProtocol
import Testing
import WebSocketTransport

@testable import Client

/// A text message of `text`, as the server would send it.
private func message(_ text: String) -> InboundMessage { InboundMessage(bytes: Array(text.utf8)) }

/// How `publish` and `simulate` read the server's answers and sum them up.
@Suite("command outcomes")
struct CommandOutcomeTests {
    @Test("publish outcomes: published and error answer the publish, other frames do not")
    func publishOutcome() {
        #expect(PublishCommand.outcome(of: message(#"{"op":"published","count":1}"#)) == .published(count: 1))
        let refusal = message(#"{"op":"error","code":"forbidden","message":"no","failed_op":"publish"}"#)
        #expect(PublishCommand.outcome(of: refusal) == .refused(ProtocolError(.forbidden, "no", failedOp: "publish")))
        #expect(PublishCommand.outcome(of: message(#"{"op":"welcome","conn":"c","node":"n","proto":1}"#)) == nil)
        #expect(PublishCommand.outcome(of: message("not json")) == nil)
    }

    @Test("the simulation summary")
    func summary() {
        var tally = SimulationTally()
        tally.sentLocations = 1200
        tally.sentBatches = 12
        tally.acknowledged = 1100
        tally.answeredBatches = 11
        tally.errors = 1
        #expect(!tally.isSettled)
        #expect(
            tally.summary(devices: 100, seconds: 12)
                == "simulate: published 1200 locations of 100 devices in 12.00 s (100.0 per second); "
                + "1100 acknowledged, 1 errors, 1 publish messages unanswered")
    }
}
