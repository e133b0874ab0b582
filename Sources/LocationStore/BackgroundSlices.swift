import Glibc

/// Cuts a commit into slices of CPU when the writer commits in the background, and yields
/// the core between slices.
///
/// At `SCHED_IDLE` the writer should get a core only when nothing else wants it. But
/// Linux's fair scheduler still gives it a turn now and then while the service thread
/// waits to run, and nothing ends that turn before the next tick. `perf sched`
/// (deploy/loadtest/store-sched-probe.sh, 2026-12-05) saw turns of 3.2 to 3.8 ms in the
/// middle of the fan-out. So the writer yields every `length` while it is in the
/// background. A turn then ends within a slice, and `sched_yield` returns at once when
/// nothing else is waiting. At nice 5 (an ack or a stop is waiting) it does not yield.
struct BackgroundSlices {
    /// How long the writer works in the background, on the wall clock, before it offers
    /// the core (a slice that was preempted ends early, which is the safe side).
    static let length = Duration.microseconds(250)

    /// How many calls of `yieldIfDue` read the clock once: a call comes with every
    /// operation of a commit, about a microsecond of work each, and reading the clock
    /// at each took about 3 % of the writer's CPU (perf, `store-bench writer-cost`).
    static let callsPerClockRead = 16

    private let length: Duration
    private let callsPerClockRead: Int
    private let isInBackground: () -> Bool
    private var sliceStarted = ContinuousClock.now
    private var callsSinceClockRead = 0

    /// Slices of `length` for a commit, yielding only while `isInBackground` (the
    /// writer's `WriterPriority`), the clock read every `callsPerClockRead` calls.
    init(
        length: Duration = Self.length, callsPerClockRead: Int = Self.callsPerClockRead,
        yieldingWhile isInBackground: @escaping () -> Bool
    ) {
        self.length = length
        self.callsPerClockRead = max(callsPerClockRead, 1)
        self.isInBackground = isInBackground
    }

    /// Yields the core if the current slice is used up and the writer is in the
    /// background (looking at the clock every `callsPerClockRead` calls); returns true
    /// if it yielded.
    @discardableResult
    mutating func yieldIfDue() -> Bool {
        callsSinceClockRead += 1
        guard callsSinceClockRead >= callsPerClockRead else { return false }
        callsSinceClockRead = 0
        guard ContinuousClock.now - sliceStarted >= length else { return false }
        defer { sliceStarted = ContinuousClock.now }
        guard isInBackground() else { return false }
        sched_yield()
        return true
    }
}
