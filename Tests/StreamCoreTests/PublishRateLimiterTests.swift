import Testing

@testable import StreamCore

/// The publish rate per identity: one bucket per identity, idle ones forgotten, the table bounded.
@Suite("publish rate limiter")
struct PublishRateLimiterTests {
    private let start = ContinuousClock.now
    private let alice = PublishIdentity.client("alice")

    @Test("a burst is allowed, then the rate; the refusal says when to retry")
    func bucket() {
        let limiter = PublishRateLimiter(rate: 10, burst: 20, now: start)
        #expect(limiter.take(20, for: alice, now: start) == nil)
        let refusal = limiter.take(5, for: alice, now: start)
        #expect(refusal?.reason == .rateLimited && refusal?.retryAfterSeconds == 1)
        #expect(refusal?.error.code == .rateLimited && refusal?.error.failedOp == "publish")
        #expect(limiter.take(5, for: alice, now: start + .milliseconds(500)) == nil, "5 refilled in 0.5 s")
        #expect(limiter.take(1, for: alice, now: start + .milliseconds(500)) != nil)
        #expect(limiter.take(15, for: alice, now: start + .seconds(1))?.retryAfterSeconds == 1)
        #expect(limiter.take(20, for: alice, now: start + .seconds(1))?.retryAfterSeconds == 2)
    }

    @Test("a batch larger than the burst is refused with no time to retry: it can never pass")
    func overBurst() {
        let limiter = PublishRateLimiter(rate: 10, burst: 20, now: start)
        let refusal = limiter.take(21, for: alice, now: start)
        #expect(refusal?.reason == .rateLimited && refusal?.retryAfterSeconds == nil)
        #expect(refusal?.message.contains("more than the burst of 20") == true)
        #expect(limiter.take(20, for: alice, now: start) == nil, "the refused batch took nothing")
    }

    @Test("identities have their own buckets; a client and an address of the same name differ")
    func identities() {
        let limiter = PublishRateLimiter(rate: 1, burst: 3, now: start)
        #expect(limiter.take(3, for: alice, now: start) == nil)
        #expect(limiter.take(1, for: alice, now: start) != nil)
        #expect(limiter.take(3, for: .client("bob"), now: start) == nil)
        #expect(limiter.take(3, for: .address("alice"), now: start) == nil)
        #expect(PublishIdentity(subject: nil, peer: "127.0.0.2") == .address("127.0.0.2"))
        #expect(PublishIdentity(subject: "alice", peer: "127.0.0.2") == alice)
    }

    @Test("an identity whose bucket has refilled is forgotten by the next sweep; a busy one is kept")
    func eviction() {
        let limiter = PublishRateLimiter(rate: 10, burst: 10, sweepInterval: .seconds(5), now: start)
        #expect(limiter.take(10, for: alice, now: start) == nil)
        #expect(limiter.take(1, for: .client("bob"), now: start) == nil)
        #expect(limiter.identityCount == 2)
        #expect(limiter.take(10, for: .client("carol"), now: start + .seconds(5)) == nil)
        #expect(limiter.identityCount == 1, "alice and bob refilled long ago; carol is busy")
        #expect(limiter.take(1, for: .client("carol"), now: start + .seconds(5)) != nil, "carol's bucket kept")
    }

    @Test("the table is bounded: a new identity finding it full of busy ones is refused, then admitted once they idle")
    func bound() {
        #expect(PublishRateLimiter(rate: 1, burst: 5).maxIdentities == 100_000, "the default bound")
        let limiter = PublishRateLimiter(rate: 1, burst: 5, maxIdentities: 100, now: start)
        for index in 0..<100 {
            #expect(limiter.take(5, for: .address("10.0.0.\(index)"), now: start) == nil)
        }
        let refusal = limiter.take(1, for: alice, now: start + .seconds(2))
        #expect(refusal?.reason == .identitiesFull && refusal?.error.code == .rateLimited)
        #expect(limiter.identityCount == 100)
        #expect(limiter.take(1, for: .address("10.0.0.7"), now: start + .seconds(2)) == nil, "known ones go on")
        #expect(limiter.take(1, for: alice, now: start + .seconds(6)) == nil, "the idle ones were swept")
        #expect(limiter.identityCount == 1)
    }
}
