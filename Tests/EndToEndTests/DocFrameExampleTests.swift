import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// The `frames` examples of `docs/protocol.md`, each run against a server set up as its
    /// block says; the frames that came back, and those the document shows, are checked
    /// against the JSON Schemas of `docs/schema` too.
    @Suite("documented frame examples")
    struct DocFrameExampleTests {
        @Test("every frames example answers as shown, and every frame fits the schemas")
        func framesExamples() async throws {
            var checker = try ContractChecker()
            let examples = try DocBlock.protocolGuide().filter { $0.language == "frames" }.map(FrameExample.init)
            #expect(examples.filter(\.isRunnable).count >= 20, "the examples were not found")
            for example in examples {
                let line = "docs/protocol.md:\(example.block.line)"
                for frame in example.expectedFrames {
                    checker.add(frame, schema: "server-message.json", label: "\(line) shows")
                }
                guard example.isRunnable else { continue }
                let run = try await FrameExampleRun(example)
                #expect(run.mismatches.isEmpty, "\(run.mismatches.joined(separator: "\n"))")
                for frame in run.received { checker.add(frame, schema: "server-message.json", label: "\(line) sent") }
                for frame in run.acceptedRequests {
                    checker.add(frame, schema: "client-message.json", label: "\(line) request")
                }
            }
            let result = try checker.checkInstances()
            #expect(result.passed, "\(result.report)")
        }
    }
}
