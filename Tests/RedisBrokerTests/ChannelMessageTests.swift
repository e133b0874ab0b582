import LocstreamProtocol
import Testing

@testable import RedisBroker

@Suite("what a node reads from Redis: channel messages, script replies, INFO")
struct ChannelMessageTests {
    let body = String(
        decoding: EncodedLocation(Location(device: "veh-1", lat: 1, lon: 2, ts: 3, seq: 1_796_112_427_409_427)).body,
        as: UTF8.self)

    @Test("a channel message gives its epoch's floor and the update")
    func floorAndUpdate() throws {
        let message = try ChannelMessage(payload: Array("1796112427409426\n7 1.0 2.0\n\(body)".utf8))
        #expect(message.floor == 1_796_112_427_409_426)
        #expect(message.stored.update.location.seq == 1_796_112_427_409_427)
        #expect(message.stored.position?.cell == 7)
    }

    @Test(
        "a message without a floor of digits up to 2^53 is refused",
        arguments: ["", "\n\n{}", "-1\n\n", "9007199254740993\n\n", "12a\n\n", "99999999999999999999\n\n"])
    func badFloor(_ payload: String) {
        #expect(throws: RedisFailure.self) { try ChannelMessage(payload: Array((payload + body).utf8)) }
    }

    @Test("a publish reply gives the epoch and seqs above its floor; anything else is refused")
    func publishReply() throws {
        let reply = try PublishReply(.array([.integer(100), .integer(2), .integer(101), .integer(102)]), count: 2)
        #expect(reply.epoch == EpochReport(floor: 100, began: .otherProcess) && reply.seqs == [101, 102])
        for bad: [RedisReply] in [
            [.integer(100), .integer(0), .integer(100), .integer(101)],  // a seq at the floor
            [.integer(100), .integer(3), .integer(101), .integer(102)],  // an unknown beginning
            [.integer(100), .integer(0), .integer(101)],  // a seq missing
            [.integer(-1), .integer(0), .integer(1), .integer(2)],  // a negative floor
        ] {
            #expect(throws: RedisFailure.self) { try PublishReply(.array(bad), count: 2) }
        }
    }

    @Test("run_id is read from INFO server, and only when it is printable")
    func runID() {
        let info = "# Server\r\nredis_version:7.0.15\r\nrun_id:2f8336bdd29284e4de849d814244e13d7c27e962\r\n"
        #expect(RedisServerInfo.runID(Array(info.utf8)) == "2f8336bdd29284e4de849d814244e13d7c27e962")
        #expect(RedisServerInfo.runID(Array("# Server\r\nrun_id:\r\n".utf8)) == nil)
        #expect(RedisServerInfo.runID(Array("run_id:a b\r\n".utf8)) == nil)
    }
}
