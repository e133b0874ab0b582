import TestSupport
import Testing

extension EndToEnd {
    /// The `curl` examples of `docs/protocol.md`, run as written against a server set up as
    /// their block says, and compared with the answers the document shows after them.
    @Suite("documented curl examples")
    struct DocShellExampleTests {
        @Test("every curl example answers as shown")
        func curlExamples() async throws {
            let examples = ShellExample.all(in: try DocBlock.protocolGuide())
            #expect(examples.count >= 6, "the examples were not found")
            for example in examples {
                let mismatches = try await example.mismatches()
                #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
            }
        }
    }
}
