import Foundation

/// The CPUs a task may run on, as `/proc/TASK/status` lists them (`Cpus_allowed_list`,
/// like `0-1`): `task` is `self`, `thread-self`, `PID` or `PID/task/TID`.
package func allowedCPUs(of task: String) throws -> String {
    let status = try String(contentsOfFile: "/proc/\(task)/status", encoding: .utf8)
    let line = status.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") } ?? ""
    return line.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces)
}
