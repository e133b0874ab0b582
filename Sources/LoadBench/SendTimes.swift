import Synchronization

/// When each publish cycle really left, in microseconds, keyed by its `ts`.
///
/// `ts` is whole milliseconds (PROTOCOL.md), too coarse for loopback latencies. The
/// publisher gives each cycle its own `ts` millisecond and records here the microsecond it
/// read that `ts`; a subscriber then measures from that microsecond instead of from the
/// start of the millisecond. Lock-free: one relaxed atomic per slot, in a ring that holds
/// the last 4,096 milliseconds. A `ts` not found here (another publisher, an old frame)
/// falls back to the start of its millisecond, which overstates latency by under 1 ms.
final class SendTimes: Sendable {
    private static let slotCount = 4096
    private let slots: InlineArray<4096, Atomic<Int64>>

    /// An empty table.
    init() { slots = InlineArray { _ in Atomic<Int64>(0) } }

    /// Records that the cycle stamped `ts = micros / 1000` was read at `micros`.
    func record(micros: Int64) {
        let ts = micros / 1000
        slots[Self.slot(of: ts)].store(micros, ordering: .relaxed)
    }

    /// The microsecond the cycle stamped `ts` was published, or the start of `ts`.
    func origin(ofTimestamp ts: Int64) -> Int64 {
        let micros = slots[Self.slot(of: ts)].load(ordering: .relaxed)
        return micros / 1000 == ts ? micros : ts * 1000
    }

    private static func slot(of ts: Int64) -> Int { Int(UInt64(bitPattern: ts) % UInt64(slotCount)) }
}
