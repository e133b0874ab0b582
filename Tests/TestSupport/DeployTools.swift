import Foundation

/// The tools tests run from PyPI (`make deploy-tools` installs them in `deploy/.venv`) and
/// from Debian: looked up in `LOCSTREAM_DEPLOY_TOOLS`, `deploy/.venv/bin`, then `PATH`.
package enum DeployTools {
    /// The repository root (this file is Tests/TestSupport/DeployTools.swift).
    package static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The executable `name`, or nil when none of the directories has it.
    package static func find(_ name: String) -> URL? {
        let environment = ProcessInfo.processInfo.environment
        var directories = [root.appendingPathComponent("deploy/.venv/bin").path]
        if let tools = environment["LOCSTREAM_DEPLOY_TOOLS"] { directories.insert(tools, at: 0) }
        directories += (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        directories += ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]
        return directories.lazy.map { URL(fileURLWithPath: $0).appendingPathComponent(name) }.first {
            FileManager.default.isExecutableFile(atPath: $0.path)
        }
    }
}
