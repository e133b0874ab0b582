import Foundation
import LocstreamProtocol
import TestSupport
import Testing

extension EndToEnd {
    /// What "the same target" means for a re-sent subscribe (issue 13, item 22).
    @Suite("the same target")
    struct SameTargetTests {
        /// Re-sent subscribes for `sub` A, running `["m-1","m-2"]` with `min_interval_ms` 500,
        /// and whether each is a no-op (else `sub_id_reused`).
        static let resent: [(frame: String, noOp: Bool)] = [
            (#"{"op":"subscribe","sub":"A","devices":["m-2","m-1"],"min_interval_ms":500}"#, true),
            (#"{"op":"subscribe","sub":"A","devices":["m-1","m-2","m-1"],"min_interval_ms":500.0}"#, true),
            (#"{"op":"subscribe","sub":"A","devices":["m-2","m-1"],"min_interval_ms":500,"snapshot":false}"#, true),
            (#"{"op":"subscribe","sub":"A","devices":["m-1","m-2"],"min_interval_ms":500,"since":{"m-1":3}}"#, true),
            (#"{"op":"subscribe","sub":"A","devices":["m-1","m-2"]}"#, false),
            (#"{"op":"subscribe","sub":"A","devices":["m-1","m-2"],"min_interval_ms":1000}"#, false),
            (#"{"op":"subscribe","sub":"A","devices":["m-1","m-2"],"min_interval_ms":500,"min_distance_m":5}"#, false),
            (#"{"op":"subscribe","sub":"A","devices":["m-1"],"min_interval_ms":500}"#, false),
        ]

        @Test("devices compare as a set; thinning counts, snapshot and since do not")
        func resentSubscribe() async throws {
            let hostile = try await HostileConnection.start()
            let viewer = hostile.attacker
            viewer.send(raw: #"{"op":"subscribe","sub":"A","devices":["m-1","m-2"],"min_interval_ms":500}"#)
            #expect(await viewer.next() == .subscribed(sub: "A", restarted: false, snapshot: 0))
            for (frame, noOp) in Self.resent {
                viewer.send(raw: frame)
                if noOp {
                    #expect(await viewer.next() == .subscribed(sub: "A", restarted: false, snapshot: 0), "\(frame)")
                } else {
                    #expect(await viewer.nextError()?.code == .subIdReused, "\(frame)")
                }
            }
            await hostile.finish()
        }
    }
}
