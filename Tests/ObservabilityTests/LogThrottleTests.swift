import Observability
import Testing

/// The throttle that keeps a flood of refused requests from flooding the log.
@Suite("log throttle")
struct LogThrottleTests {
    @Test("lets perSecond lines through each second and reports the rest on the next one")
    func capsEachSecond() {
        let throttle = LogThrottle(perSecond: 3)
        let first = (0..<10).map { _ in throttle.admit(atSecond: 100) }
        #expect(first == [0, 0, 0, nil, nil, nil, nil, nil, nil, nil])
        #expect(throttle.admit(atSecond: 101) == 7, "the next second's first line carries the 7 held back")
        #expect(throttle.admit(atSecond: 101) == 0)
    }

    @Test("a quiet logger loses nothing")
    func quietLosesNothing() {
        let throttle = LogThrottle(perSecond: 1)
        #expect((0..<5).map { throttle.admit(atSecond: Int64($0)) } == [0, 0, 0, 0, 0])
    }
}
