import Foundation

/// How many cores this process may run on: the bits of `Cpus_allowed` in
/// `/proc/self/status`, which `taskset`, `systemd`'s `CPUAffinity=` and container CPU
/// sets all narrow (Foundation's `activeProcessorCount` counts every online core).
public enum CPUAffinity {
    /// The cores allowed, or every online core when the mask cannot be read.
    public static func coreCount(status: String? = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8))
        -> Int
    {
        let mask = status?.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed:") }
        let allowed = mask.map { line in
            line.dropFirst("Cpus_allowed:".count).split(separator: ",").reduce(0) { sum, word in
                sum + (UInt64(word.trimmingCharacters(in: .whitespaces), radix: 16)?.nonzeroBitCount ?? 0)
            }
        }
        guard let allowed, allowed > 0 else { return max(ProcessInfo.processInfo.activeProcessorCount, 1) }
        return allowed
    }
}
