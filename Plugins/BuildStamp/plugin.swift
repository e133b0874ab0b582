import Foundation
import PackagePlugin

/// Stamps the `BuildInfo` target with the git commit it is built from and the Swift
/// compiler's version: `stamp.sh` writes `BuildStamp.swift`, and only when its text
/// changes, so an unchanged checkout recompiles nothing. Built outside a git checkout (a
/// source tarball, the container image's build context), the commit is `unknown`.
///
/// It is a build command whose inputs are the files git rewrites whenever `HEAD` moves
/// (`GitHead`), not a prebuild command: SwiftPM runs prebuild commands only when it loads
/// the package again, so an incremental build after a commit kept the old commit
/// (swiftlang/swift-package-manager#5476).
@main
struct BuildStamp: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "stamp/BuildStamp.swift")
        let script = context.package.directoryURL.appending(path: "Plugins/BuildStamp/stamp.sh")
        return [
            .buildCommand(
                displayName: "Stamping the build with its git commit",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [script.path, context.package.directoryURL.path, output.deletingLastPathComponent().path],
                environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"],
                inputFiles: [script] + GitHead.files(of: context.package.directoryURL),
                outputFiles: [output])
        ]
    }
}

/// The files of a checkout that change whenever its `HEAD` moves to another commit.
enum GitHead {
    /// `.git/HEAD` (another branch), the reflog of `HEAD` (a commit, a reset, a checkout,
    /// a merge) and the loose ref of the branch `HEAD` names (where reflogs are off):
    /// those of them that exist. None outside a checkout, or in a worktree whose `.git`
    /// is a file (its commit is then stamped when the package is loaded).
    static func files(of package: URL) -> [URL] {
        let git = package.appending(path: ".git")
        let head = git.appending(path: "HEAD")
        var candidates = [head, git.appending(path: "logs/HEAD")]
        if let text = try? String(contentsOf: head, encoding: .utf8), text.hasPrefix("ref: ") {
            let ref = text.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines)
            candidates.append(git.appending(path: ref))
        }
        return candidates.filter { FileManager.default.fileExists(atPath: $0.path) }
    }
}
