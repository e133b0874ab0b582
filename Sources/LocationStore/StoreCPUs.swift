import CSched
import Dispatch
import Foundation
import Locking

/// The CPUs the store's writer and checkpointer run on (`--store-cpus`), so that on a
/// host with cores to spare the disk work stays off the core that serves, as Redis's
/// `bio_cpulist` does for its background threads.
///
/// Sharing the service thread's one core, the store's peak was 0.73–0.82× of
/// `--store memory`'s; with its threads on another core, 0.91–0.94×
/// (deploy/loadtest/store-figures.sh, 2026-12-05).
public struct StoreCPUs: Sendable, Equatable, CustomStringConvertible {
    /// CPU numbers stay below this (the kernel's `CPU_SETSIZE`).
    public static let limit = 1024

    /// The CPUs, ascending, each once.
    public let cpus: [Int]

    /// The CPUs of `text`, a list like `0-3,6` (numbers and ascending ranges, separated by
    /// commas); nil if it is not one, or names a CPU at or past `limit`.
    public init?(parsing text: String) {
        var cpus = Set<Int>()
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = item.split(separator: "-", omittingEmptySubsequences: false).map {
                Int($0.trimmingCharacters(in: .whitespaces))
            }
            guard (1...2).contains(bounds.count), let first = bounds[0], let last = bounds[bounds.count - 1],
                0 <= first, first <= last, last < Self.limit
            else { return nil }
            cpus.formUnion(first...last)
        }
        self.cpus = cpus.sorted()
    }

    /// The list in its shortest form: `0-3,6`.
    public var description: String {
        var ranges: [ClosedRange<Int>] = []
        for cpu in cpus {
            if let last = ranges.last, last.upperBound + 1 == cpu {
                ranges[ranges.count - 1] = last.lowerBound...cpu
            } else {
                ranges.append(cpu...cpu)
            }
        }
        return ranges.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }
            .joined(separator: ",")
    }

    /// Lets the calling thread run on these CPUs alone; returns the errno of a refusal
    /// (EINVAL: none of them is online or allowed to this process), nil when it is done.
    @discardableResult
    func pinCurrentThread() -> Int32? {
        var mask = [UInt8](repeating: 0, count: Self.limit / 8)
        for cpu in cpus { mask[cpu / 8] |= 1 << UInt8(cpu % 8) }
        let error = locstream_pin_current_thread(mask, mask.count)
        return error == 0 ? nil : error
    }

    /// Why the store's threads could not run on these CPUs, tried on a short-lived thread
    /// so the caller's own stays where it was; nil when they can.
    func refusal() -> String? {
        let outcome = Locked<Int32?>(nil)
        let done = DispatchSemaphore(value: 0)
        let probe = Thread {
            let error = pinCurrentThread()
            outcome.withLock { $0 = error }
            done.signal()
        }
        probe.start()
        done.wait()
        return outcome.withLock { $0 }.map { String(cString: strerror($0)) }
    }
}
