/// The store-wide numbers that keep seqs from ever going back or repeating, although
/// fan-out runs ahead of the disk (the `seq_state` row).
///
/// **Crash: a reservation the size of the write queue.** The broker hands out a seq only
/// together with an `enqueue` of the update that carries it, and `enqueue` refuses once
/// `capacity` updates are waiting to be committed (queued, in the transaction being
/// written, or failed and waiting for a retry). Every seq is one more than a seq handed
/// out earlier (the device's previous one, or the floor a new device starts from, which
/// is itself a seq once handed out) or than a number the store gave at start. So
/// whatever was sent but is not in the file lies at most `capacity` above the highest
/// number the file holds. In other words, `highest stored + capacity` is reserved
/// durably, for free: the file records, while a process has it open, the capacity that
/// process runs with (`open_capacity`, written and fsynced before any seq is handed
/// out), and a clean `close` clears it after the last commit. A start that finds it set
/// knows the previous process died with writes in flight and raises the epoch floor to
/// `max(epoch floor, removed floor, highest committed seq) + open_capacity`; every
/// device continues above that. That floor is committed (fsynced) before the new process
/// hands out anything, so a crash right after a recovery is covered again. A gap of up
/// to `capacity` (plus the device's distance from the highest seq) is the price; reuse
/// cannot happen.
///
/// **Data directory lost or replaced, power loss with `synchronous=NORMAL`: the clock.**
/// Every start raises the epoch floor to at least the wall clock in microseconds since
/// 1970, the rule of the Redis broker's epochs. Every seq is at most one above a seq
/// handed out earlier, so as long as no device publishes more than once a microsecond on
/// average, every seq ever handed out is below the wall clock of the moment, and a store
/// started later starts above it. Nothing inside the directory can tell a clean restart
/// from a restored backup of a stopped server (the backup says "closed cleanly" too), nor
/// a first start from a lost directory, so the clock applies to every start: a restart
/// costs a gap, never a repeat. It needs the clock not to go back across a restart, and
/// microseconds stay below 2^53 (exact in a JSON number) until the year 2255.
struct SeqState: Equatable, Sendable {
    /// Every device's seqs continue above this (raised by every start, and by a recovery).
    var epochFloor: UInt64
    /// The highest seq of a device removed for silence: a device that comes back, or a
    /// new one, starts above it.
    var removedFloor: UInt64
    /// The highest seq ever committed.
    var highSeq: UInt64
    /// The write-queue capacity of the process that has the store open; 0 after a clean close.
    var openCapacity: UInt64

    /// True when the last process did not close the store cleanly.
    var needsRecovery: Bool { openCapacity > 0 }

    /// The state at the start of a process running with `capacity`, at wall clock
    /// `nowMicros`: above the clock, and above the reservation if the previous process died.
    func started(capacity: Int, nowMicros: UInt64) -> SeqState {
        var next = self
        next.epochFloor = max(epochFloor, nowMicros)
        if needsRecovery {
            next.epochFloor = max(next.epochFloor, max(epochFloor, removedFloor, highSeq) + openCapacity)
        }
        next.openCapacity = UInt64(capacity)
        return next
    }

    /// The seq a stored device continues above.
    func resumeSeq(stored: UInt64) -> UInt64 { max(stored, epochFloor) }

    /// The seq a device the store does not hold starts above.
    var newDeviceFloor: UInt64 { max(epochFloor, removedFloor) }
}
