import Testing

@testable import WebSocketTransport

/// Joining lws's chunks into messages, with the size limit.
@Suite("message assembler")
struct MessageAssemblerTests {
    @Test("chunks join into one message; the limit is inclusive; over it is tooLarge")
    func assembly() {
        var assembler = MessageAssembler(limit: 6)
        let outcome1 = [UInt8]("abc".utf8).withUnsafeBytes { assembler.append($0, isFinal: false, isBinary: true) }
        #expect(outcome1 == .partial)
        let outcome2 = [UInt8]("def".utf8).withUnsafeBytes { assembler.append($0, isFinal: true, isBinary: false) }
        #expect(outcome2 == .complete(InboundMessage(bytes: Array("abcdef".utf8), isBinary: true)))
        let over = [UInt8]("1234567".utf8).withUnsafeBytes { assembler.append($0, isFinal: true, isBinary: false) }
        #expect(over == .tooLarge)
        let empty = [UInt8]().withUnsafeBytes { assembler.append($0, isFinal: true, isBinary: false) }
        #expect(empty == .complete(InboundMessage(bytes: [])))
    }
}
