import LocstreamProtocol

/// The per-connection state of a subscriber's read loop, and what it does with each frame.
///
/// `loc` frames are scanned, not decoded: their `seq` is checked per device, their `sub`
/// against the last acknowledged one, and their latency recorded. Control frames are rare
/// and decoded fully.
struct FrameReceiver: Sendable {
    private let shared: BenchShared
    /// Measurements not yet merged into the shared tally.
    private(set) var tally = SubscriberTally()
    private var tracker: SequenceTracker
    /// The sub of the last `subscribed`; a `loc` of any other sub after it is stale.
    private var acknowledged: [UInt8]?
    private var cachedTs: Int64 = -1
    private var cachedOrigin: Int64 = 0
    /// Whether a `subscribed` has arrived on this connection.
    private(set) var isSubscribed = false

    /// A receiver expecting about `devices` devices.
    init(shared: BenchShared, devices: Int) {
        self.shared = shared
        tracker = SequenceTracker(devices: devices)
    }

    /// Handles one frame received at `now` (wall-clock microseconds).
    mutating func receive(_ bytes: [UInt8], at now: Int64) {
        let acknowledged = self.acknowledged
        let (frame, isStale) = bytes.withUnsafeBufferPointer { buffer in
            let frame = LocFrameScanner.scan(buffer)
            guard case .loc(let loc) = frame, let acknowledged else { return (frame, false) }
            return (frame, !ByteCursor.equals(buffer, loc.sub, acknowledged))
        }
        switch frame {
        case .loc(let loc):
            tally.counts.frames += 1
            tally.counts.bytes += bytes.count
            if isStale { tally.counts.staleAfterAck += 1 }
            tracker.count(key: loc.deviceKey, seq: loc.seq, into: &tally.counts)
            if loc.ts != cachedTs {
                cachedTs = loc.ts
                cachedOrigin = shared.sendTimes.origin(ofTimestamp: loc.ts)
            }
            tally.recordLatency(now - cachedOrigin, at: now, into: shared.tally)
            shared.frames.add(1)
        case .control:
            control(bytes, at: now)
        case .malformed:
            tally.counts.errors += 1
        }
    }

    /// Merges everything measured into the shared tally.
    mutating func flush() {
        tally.flush(into: shared.tally)
    }

    private mutating func control(_ bytes: [UInt8], at now: Int64) {
        switch try? ServerMessage.decode(bytes) {
        case .subscribed(let sub, _, _):
            acknowledged = Array(sub.utf8)
            tracker.reset()
            if let sent = shared.pendingSwitches.withLock({ $0.removeValue(forKey: sub) }) {
                tally.recordSwitchAck(now - sent)
            }
            if !isSubscribed {
                isSubscribed = true
                shared.tally.withLock { $0.subscribed += 1 }
            }
        case .error(let error):
            tally.counts.errors += 1
            shared.tally.withLock { $0.noteError("\(error.code.rawValue): \(error.message)") }
        case .welcome, .authed, .loc, .leave, .unsubscribed, .published, .pong:
            break
        case nil:
            tally.counts.errors += 1
        }
    }
}
