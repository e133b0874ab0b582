/// When the reports of a simulation are due.
///
/// Reports are numbered 0, 1, 2, … and go round the devices in order: report `k` is
/// device `k % N`'s, due at `k / (N × rate)` seconds after the start. So each device reports
/// every `1 / rate` seconds, and the devices' reports are spread evenly over that period
/// rather than bunched at its start. The schedule is logical: the movement and timestamps
/// follow it exactly, however late the reports actually leave.
struct PublishSchedule: Sendable, Equatable {
    /// How many devices report.
    var deviceCount: Int
    /// How often each reports, per second.
    var rate: Double
    /// How long the run lasts, in seconds; nil runs until stopped.
    var duration: Double?

    /// Seconds between two reports of one device: each vehicle's movement step.
    var interval: Double { 1 / rate }

    /// How many reports the whole run makes; nil when it has no duration.
    var totalReports: Int? {
        duration.map { Int((($0 * rate * Double(deviceCount)) - 1e-9).rounded(.up)) }
    }

    /// How many reports are due by `elapsed` seconds after the start (report 0 at once).
    func dueCount(at elapsed: Double) -> Int {
        let due = Int((max(0, elapsed) * rate * Double(deviceCount)).rounded(.down)) + 1
        return totalReports.map { min($0, due) } ?? due
    }

    /// The device of report `number`.
    func device(of number: Int) -> Int { number % deviceCount }

    /// Whether report `number` is its device's first (no movement before it).
    func isFirst(_ number: Int) -> Bool { number < deviceCount }

    /// Report `number`'s time after the start, in milliseconds.
    func offsetMilliseconds(of number: Int) -> Int64 {
        Int64((Double(number) / (rate * Double(deviceCount)) * 1000).rounded(.down))
    }
}
