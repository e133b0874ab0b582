import LocstreamProtocol
import Testing

@testable import Client

/// Reconnecting: the backoff, and what a resubscribe asks for.
@Suite("reconnect and resume")
struct ReconnectTests {
    @Test("backoff grows exponentially, is capped, and jitters within the upper half")
    func backoff() {
        let backoff = SubscribeCommand.backoff
        #expect(backoff.delay(attempt: 1, jitter: 0) == .milliseconds(250))
        #expect(backoff.delay(attempt: 1, jitter: 1) == .milliseconds(500))
        #expect(backoff.delay(attempt: 3, jitter: 0.5) == .milliseconds(1500))
        #expect(backoff.delay(attempt: 20, jitter: 1) == .seconds(30))
        #expect(backoff.delay(attempt: 10_000, jitter: 0) == .seconds(15))
        for attempt in 1...12 {
            let ceiling = min(.seconds(30), .milliseconds(500) * (1 << (attempt - 1)))
            for jitter in stride(from: 0.0, through: 1, by: 0.1) {
                #expect((ceiling / 2...ceiling).contains(backoff.delay(attempt: attempt, jitter: jitter)))
            }
        }
    }

    @Test("resume points keep the last seq per device, capped to the most recently heard")
    func resumePoints() {
        var points = ResumePoints(limit: 2)
        #expect(points.record(device: "a", seq: 5) == nil)
        #expect(points.record(device: "a", seq: 7) == 5)
        #expect(points.record(device: "a", seq: 6) == 7)  // not recorded: seq went back
        #expect(points.seq(of: "a") == 7)
        points.record(device: "b", seq: 1)
        points.record(device: "c", seq: 9)
        #expect(points.count == 3)
        #expect(points.since == ["b": 1, "c": 9])
        points.reset()
        #expect(points.since.isEmpty)
    }

    @Test("a plan resumes with since, switches under new ids, and forgets on unsub")
    func plan() {
        let first = SubscribeRequest(sub: "x", target: .devices(["veh-1"]), snapshot: false, minIntervalMs: 500)
        var plan = SubscriptionPlan(first: first, subID: nil)
        #expect(plan.connectionOpened()?.sub == "sub-1")
        plan.confirmed(sub: "sub-1")
        #expect(plan.record(sub: "sub-1", device: "veh-1", seq: 10) == nil)
        #expect(plan.record(sub: "sub-1", device: "veh-1", seq: 11) == 10)
        #expect(plan.record(sub: "old", device: "veh-1", seq: 50) == nil)
        let resumed = plan.connectionOpened()
        #expect(resumed?.sub == "sub-1" && resumed?.since == ["veh-1": 11])
        #expect(resumed?.snapshot == false && resumed?.minIntervalMs == 500)

        let switched = plan.switchTo(.area(.circle(lon: 13.4, lat: 52.5, radiusMeters: 100)))
        #expect(switched.sub == "sub-2")
        #expect(switched.target == .area(.circle(lon: 13.4, lat: 52.5, radiusMeters: 100)))
        #expect(!switched.snapshot && switched.minIntervalMs == 500 && switched.since.isEmpty)
        plan.confirmed(sub: "sub-2")
        #expect(plan.record(sub: "sub-1", device: "veh-1", seq: 12) == nil)
        #expect(plan.connectionOpened()?.since == [:])
        #expect(plan.switchTo(.devices(["b"])).sub == "sub-3")

        plan.unsubscribe()
        #expect(plan.connectionOpened() == nil)
        #expect(plan.switchTo(.devices(["c"])).sub == "sub-4")

        var named = SubscriptionPlan(first: first, subID: "map")
        #expect(named.connectionOpened()?.sub == "map")
        #expect(named.switchTo(.devices(["c"])).sub == "map-2")
    }

    @Test("a refused switch falls back to the subscription still running, with its resume points")
    func refusedSwitch() {
        var plan = SubscriptionPlan(first: SubscribeRequest(sub: "x", target: .devices(["a"])), subID: "A")
        _ = plan.connectionOpened()
        plan.confirmed(sub: "A")
        _ = plan.record(sub: "A", device: "a", seq: 3)
        #expect(plan.switchTo(.devices(["forbidden"])).sub == "A-2")
        #expect(plan.record(sub: "A", device: "a", seq: 4) == 3)  // A runs until the answer
        #expect(plan.refused()?.sub == "A")
        #expect(plan.current?.sub == "A" && plan.isConfirmed)
        #expect(plan.connectionOpened()?.since == ["a": 4])
    }

    @Test("with switches in flight, each answer moves the plan to what the server runs")
    func switchesInFlight() {
        var plan = SubscriptionPlan(first: SubscribeRequest(sub: "x", target: .devices(["a"])), subID: "A")
        _ = plan.connectionOpened()
        plan.confirmed(sub: "A")
        _ = plan.switchTo(.devices(["b"]))  // will be accepted
        _ = plan.switchTo(.devices(["c"]))  // will be refused
        plan.confirmed(sub: "A-2")
        #expect(plan.record(sub: "A-2", device: "b", seq: 7) == nil)
        #expect(plan.refused()?.sub == "A-2")
        #expect(plan.current?.target == .devices(["b"]))
        #expect(plan.connectionOpened()?.since == ["b": 7])

        // A refused first subscribe leaves nothing running, and nothing to resume.
        var refusedFirst = SubscriptionPlan(first: SubscribeRequest(sub: "x", target: .devices(["z"])), subID: nil)
        _ = refusedFirst.connectionOpened()
        #expect(refusedFirst.refused() == nil)
        #expect(refusedFirst.current == nil)
        #expect(refusedFirst.connectionOpened() == nil)
    }
}

/// Resubscribes that stay inside the server's message limit.
@Suite("resubscribe size")
struct ResubscribeSizeTests {
    @Test("a resubscribe of a busy area lists only as many recent devices as fit the limit")
    func capped() {
        let area = SubscriptionTarget.area(.bbox(minLon: 13, minLat: 52, maxLon: 14, maxLat: 53))
        var plan = SubscriptionPlan(first: SubscribeRequest(sub: "x", target: area), subID: nil)
        _ = plan.connectionOpened()
        plan.confirmed(sub: "sub-1")
        let long = String(repeating: "d", count: 120)
        for index in 0..<3000 { _ = plan.record(sub: "sub-1", device: "\(long)\(index)", seq: UInt64(index + 1)) }
        let request = plan.connectionOpened()
        let since = request?.since ?? [:]
        #expect(!since.isEmpty && since.count < 1000)
        #expect(since["\(long)2999"] == 3000)  // the most recent is kept
        #expect(
            request.map { ClientMessage.subscribe($0).encoded().count } ?? .max <= SubscriptionPlan.maxSubscribeBytes)
    }
}
