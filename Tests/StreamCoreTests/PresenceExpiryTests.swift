import Foundation
import LocstreamProtocol
import Testing

@testable import StreamCore

/// `PresenceTracker.expire` against a brute-force model: random devices heard at random
/// moments of a hand-moved clock, expiry called at random moments; a device goes offline at
/// the first call after it has been silent longer than `offlineAfter`, never before, once.
@Suite("presence expiry")
struct PresenceExpiryTests {
    @Test("expire matches the model exactly (20 seeds × 400 steps)")
    func matchesModel() {
        for seed in 1...20 {
            var random = SeededRandom(seed: UInt64(seed))
            let clock = ManualClock()
            let offlineAfter = Duration.milliseconds(Int64.random(in: 200...20_000, using: &random))
            let tracker = PresenceTracker(offlineAfter: offlineAfter, clock: clock)
            var heard: [String: ContinuousClock.Instant] = [:]
            var seqs: [String: UInt64] = [:]
            for step in 0..<400 {
                clock.advance(
                    by: .milliseconds(Int64.random(in: 0...Int64(offlineAfter / .milliseconds(10)), using: &random)))
                if Int.random(in: 0..<4, using: &random) == 0 {
                    let now = clock.instant
                    let expected = Set(heard.filter { now - $0.value > offlineAfter }.keys)
                    let got = tracker.expire().map(\.location.device)
                    #expect(Set(got) == expected && got.count == expected.count, "seed \(seed), step \(step)")
                    for device in expected { heard[device] = nil }
                    continue
                }
                let device = "d\(Int.random(in: 0..<50, using: &random))"
                seqs[device, default: 0] += 1
                let ts = Int64(clock.now.timeIntervalSince1970 * 1000)
                tracker.heard(EncodedLocation(Location(device: device, lat: 0, lon: 0, ts: ts, seq: seqs[device]!)))
                heard[device] = clock.instant
            }
        }
    }
}
