import LocstreamProtocol

/// Which devices each subscriber watches, and the frames that subscribe it.
///
/// Subscriber `i` watches devices `(i·K + j + shift·K) mod D` for `j` in `0..<K`: round-robin,
/// so every device has about `S·K/D` watchers. A churn switch `m` uses `shift = m`.
struct WatchPlan: Sendable, Equatable {
    let devices: Int
    let perSubscriber: Int
    let prefix: String

    /// The device indices subscriber `index` watches in its subscription number `shift`.
    func deviceIndices(of index: Int, shift: Int = 0) -> [Int] {
        let base = (index * perSubscriber + shift * perSubscriber) % devices
        return (0..<perSubscriber).map { (base + $0) % devices }
    }

    /// The sub id of subscriber `index`'s subscription number `shift`.
    func sub(of index: Int, shift: Int = 0) -> String { shift == 0 ? "s\(index)" : "s\(index).\(shift)" }

    /// The `subscribe` frame (live updates only, no snapshot) for that subscription.
    func subscribeFrame(of index: Int, shift: Int = 0) -> [UInt8] {
        let ids = deviceIndices(of: index, shift: shift).map { prefix + String($0) }
        let request = SubscribeRequest(sub: sub(of: index, shift: shift), target: .devices(ids), snapshot: false)
        return ClientMessage.subscribe(request).encoded()
    }

    /// How many of `subscribers` watch each device.
    func watchers(of subscribers: some Sequence<Int>) -> [Int] {
        var counts = [Int](repeating: 0, count: devices)
        for index in subscribers {
            for device in deviceIndices(of: index) { counts[device] += 1 }
        }
        return counts
    }

    /// The frames `subscribers` should receive when device `d` published `published[d]` times.
    func expectedFrames(of subscribers: some Sequence<Int>, published: [Int]) -> Int {
        var total = 0
        for index in subscribers {
            for device in deviceIndices(of: index) where device < published.count { total += published[device] }
        }
        return total
    }
}
