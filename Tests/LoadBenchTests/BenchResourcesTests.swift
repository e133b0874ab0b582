import Testing

@testable import LoadBench

/// What a bench's connections need of the machine: open files and loopback source addresses.
@Suite("bench resources")
struct BenchResourcesTests {
    @Test("too many connections for the open-file limit is refused, naming the option")
    func fileLimit() {
        #expect(throws: BenchFailure.self) { try FileLimit.ensure(Int(Int32.max), option: "--connections") }
        #expect(throws: Never.self) { try FileLimit.ensure(10, option: "--connections") }
    }

    @Test("source addresses only for a 127.x literal, dealt round-robin")
    func sources() {
        let sources = SourceAddresses(count: 3, host: "127.0.0.1")
        #expect(sources.addresses == ["127.0.0.1", "127.0.0.2", "127.0.0.3"])
        #expect(sources.address(for: 4) == "127.0.0.2")
        #expect(SourceAddresses(count: 3, host: "localhost").address(for: 0) == nil)
        #expect(SourceAddresses(count: 3, host: "10.0.0.1").addresses.isEmpty)
        #expect(SourceAddresses(count: 999, host: "127.1.2.3").addresses.count == 254)
        #expect(!SourceAddresses.isLoopbackLiteral("127.0.0") && !SourceAddresses.isLoopbackLiteral("127.0.0.256"))
    }
}
