import Foundation
import PackagePlugin

/// Embeds the machine-readable contract in the target: `embed.sh` writes
/// `ContractFiles.swift` from `docs/openapi.json`, `docs/asyncapi.json` and
/// `docs/schema/*.json`, and only when its text changes, so unchanged documents recompile
/// nothing. `docs/` stays the one copy of the contract; the server serves what it was built with.
///
/// It is a build command with those documents (and `docs/schema` itself, whose time
/// changes when a schema is added or removed) as its inputs, not a prebuild command:
/// SwiftPM runs prebuild commands only when it loads the package again, so an edited
/// document was not embedded by an incremental build (swiftlang/swift-package-manager#5476).
@main
struct EmbedContract: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "contract/ContractFiles.swift")
        let script = context.package.directoryURL.appending(path: "Plugins/EmbedContract/embed.sh")
        let docs = context.package.directoryURL.appending(path: "docs")
        let schemas = docs.appending(path: "schema")
        let schemaFiles = ((try? FileManager.default.contentsOfDirectory(atPath: schemas.path)) ?? [])
            .filter { $0.hasSuffix(".json") }.sorted().map { schemas.appending(path: $0) }
        let documents = [docs.appending(path: "openapi.json"), docs.appending(path: "asyncapi.json"), schemas]
        return [
            .buildCommand(
                displayName: "Embedding the contract documents of docs/",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [script.path, docs.path, output.deletingLastPathComponent().path],
                inputFiles: [script] + documents + schemaFiles,
                outputFiles: [output])
        ]
    }
}
