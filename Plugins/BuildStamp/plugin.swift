import Foundation
import PackagePlugin

/// Stamps the `BuildInfo` target with the git commit it is built from and the Swift
/// compiler's version, before every build: `stamp.sh` writes `BuildStamp.swift`, and only
/// when its text changes, so an unchanged checkout recompiles nothing. Built outside a git
/// checkout (a source tarball, the container image's build context), the commit is `unknown`.
@main
struct BuildStamp: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "stamp")
        let script = context.package.directoryURL.appending(path: "Plugins/BuildStamp/stamp.sh")
        return [
            .prebuildCommand(
                displayName: "Stamping the build with its git commit",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [script.path, context.package.directoryURL.path, output.path],
                environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"],
                outputFilesDirectory: output)
        ]
    }
}
