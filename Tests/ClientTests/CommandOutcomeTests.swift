import LocstreamClient
import Testing

@testable import Client

/// How `publish` and `simulate` report what the server answered.
@Suite("command outcomes")
struct CommandOutcomeTests {
    @Test("publish outcomes: the line that reports each, and whether it succeeded")
    func publishOutcome() throws {
        let settings = try PublishSettings(
            arguments: ["ws://127.0.0.1:1/v1/stream", "--device", "veh-1", "--lat", "1", "--lon", "2", "--ts", "7"])
        let refusal = ProtocolError(.forbidden, "no", failedOp: "publish")
        let cases: [(PublishCommand.Outcome, String, Bool)] = [
            (.success([42]), "published 1 location for veh-1 (ts 7)", true),
            (.failure(.forbidden(refusal)), "publish refused: forbidden: no", false),
            (.failure(.connectionLost("closed")), "publish: the connection closed before the server answered", false),
            (
                .failure(.cannotConnect("refused")), "publish: cannot connect to ws://127.0.0.1:1/v1/stream: refused",
                false
            ),
            (nil, "publish: no answer within 10.0 seconds", false),
        ]
        for (outcome, line, succeeded) in cases {
            let report = PublishCommand.report(outcome, settings: settings)
            #expect(report.line == line && report.succeeded == succeeded, "\(String(describing: outcome))")
        }
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
