import LocstreamClient
import TestSupport
import Testing

extension ClientEndToEndTests {
    /// `wss://` through the lws transport, trusting a self-signed certificate by its CA file.
    @Suite("wss")
    struct TLSTests {
        @Test("publish and a sequence over wss:// with a self-signed CA", .timeLimit(.minutes(1)))
        func selfSignedCA() async throws {
            let certificate = try SelfSignedCertificate()
            let server = try await ServerHarness([
                "--tls-cert", certificate.certificatePath, "--tls-key", certificate.keyPath,
            ])
            let url = "wss://localhost:\(server.port)/v1/stream"
            try await ClientEndToEndTests.withClient(url: url, caFile: certificate.certificatePath) { client in
                let seqs = try await client.publish([testLocation("w-1")])
                let opening = try await client.locations(of: ["w-1"]).collect(until: \.endsOpening)
                #expect(opening == [.location(located("w-1", seq: seqs[0])), .snapshotEnd])
            }
        }
    }
}
