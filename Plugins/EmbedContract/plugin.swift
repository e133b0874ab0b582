import Foundation
import PackagePlugin

/// Embeds the machine-readable contract in the target before every build: `embed.sh` writes
/// `ContractFiles.swift` from `docs/openapi.json`, `docs/asyncapi.json` and
/// `docs/schema/*.json`, and only when its text changes, so unchanged documents recompile
/// nothing. `docs/` stays the one copy of the contract; the server serves what it was built with.
@main
struct EmbedContract: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "contract")
        let script = context.package.directoryURL.appending(path: "Plugins/EmbedContract/embed.sh")
        return [
            .prebuildCommand(
                displayName: "Embedding the contract documents of docs/",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [script.path, context.package.directoryURL.appending(path: "docs").path, output.path],
                outputFilesDirectory: output)
        ]
    }
}
