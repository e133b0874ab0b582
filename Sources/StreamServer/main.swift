import BuildInfo
import Foundation
import Observability
import OptionParsing
import WebSocketTransport

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print(ServerSettings.help)
    exit(0)
}
if arguments.contains("--version") {
    print(BuildInfo.versionLine("stream-server"))
    exit(0)
}

let settings: ServerSettings
do {
    settings = try ServerSettings(arguments: arguments, environment: ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data("stream-server: \(error)\n".utf8))
    exit(2)
}

if settings.printOnly {
    for variable in settings.unknownEnvironment {
        FileHandle.standardError.write(Data("stream-server: warning: \(variable)\n".utf8))
    }
    for unused in settings.unusedStoreOptions {
        FileHandle.standardError.write(
            Data("stream-server: warning: \(unused.option) has no effect: \(unused.reason)\n".utf8))
    }
    print(settings.printedConfiguration)
    exit(0)
}

exit(await ServerProcess(settings: settings).run())
