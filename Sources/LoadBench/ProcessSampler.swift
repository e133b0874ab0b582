import Foundation
import LocstreamProtocol

/// Reads a process's CPU time and resident memory from `/proc`.
public struct ProcessSampler: Sendable {
    /// One reading of a process's CPU time.
    package struct CPUReading: Sendable {
        /// User plus system time, in clock ticks.
        package var ticks: Int
        /// When it was read.
        var at: ContinuousClock.Instant
    }

    /// The process, or nil for this one (`/proc/self`).
    let pid: Int32?

    /// A sampler of process `pid`, or of this process when nil.
    public init(pid: Int32?) { self.pid = pid }

    private var directory: String { pid.map { "/proc/\($0)" } ?? "/proc/self" }

    /// Whether the process exists and its `/proc` entry is readable.
    public var isReadable: Bool { cpu() != nil }

    /// utime + stime from `/proc/PID/stat` (fields 14 and 15), or nil.
    package func cpu() -> CPUReading? {
        guard let text = try? String(contentsOfFile: directory + "/stat", encoding: .utf8) else { return nil }
        return Self.parseStat(text).map { CPUReading(ticks: $0, at: .now) }
    }

    /// VmRSS from `/proc/PID/status`, in KiB, or nil.
    package func residentKiB() -> Int? {
        guard let text = try? String(contentsOfFile: directory + "/status", encoding: .utf8) else { return nil }
        return Self.parseResident(text)
    }

    /// CPU use between two readings, in percent of one core.
    package static func percent(from start: CPUReading, to end: CPUReading) -> Double? {
        let seconds = start.at.duration(to: end.at).seconds
        guard seconds > 0 else { return nil }
        return Double(end.ticks - start.ticks) / Double(ticksPerSecond) / seconds * 100
    }

    /// Clock ticks per second in `/proc/PID/stat` (USER_HZ).
    package static let ticksPerSecond = max(1, sysconf(Int32(_SC_CLK_TCK)))

    /// utime + stime of a `stat` line. The command name may hold spaces and parentheses,
    /// so fields are counted after its last `)`: state is field 3, utime 14, stime 15.
    static func parseStat(_ text: String) -> Int? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }

    /// The `VmRSS:` value of a `status` file, in KiB.
    static func parseResident(_ text: String) -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        }
        return nil
    }
}
