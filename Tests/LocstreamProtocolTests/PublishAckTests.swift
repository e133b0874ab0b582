import LocstreamProtocol
import Testing

@Suite("published with seqs (v1.1)")
struct PublishAckTests {
    @Test("encodes count and seqs; decodes them back; a v1 decoder still reads the count")
    func roundTrip() throws {
        let ack = PublishAck(seqs: [43, 12, 1_796_112_428_259_829])
        let bytes = ack.encoded()
        #expect(
            String(decoding: bytes, as: UTF8.self) == #"{"op":"published","count":3,"seqs":[43,12,1796112428259829]}"#)
        #expect(PublishAck.decode(bytes) == ack)
        #expect(try ServerMessage.decode(bytes) == .published(count: 3))
    }

    @Test(
        "no ack from a frame without valid seqs",
        arguments: [
            #"{"op":"published","count":2}"#, #"{"op":"published","count":2,"seqs":[1]}"#,
            #"{"op":"published","count":1,"seqs":[-1]}"#, #"{"op":"published","count":1,"seqs":[1.5]}"#,
            #"{"op":"pong","count":1,"seqs":[1]}"#, "not json",
        ])
    func refusals(text: String) {
        #expect(PublishAck.decode(Array(text.utf8)) == nil)
    }
}
