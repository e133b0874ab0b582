// `follow URL DEVICE…`: prints every update of the devices until interrupted, reconnecting
// and resuming as needed. A token, when the server wants one, comes from LOCSTREAM_TOKEN.
// The smallest program on LocstreamClient; `swift build` builds it, so it keeps compiling.
import Foundation
import LocstreamClient
import LocstreamClientLWS
import WebSocketTransport

/// Writes `line` to standard output at once, also into a pipe.
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: follow ws://HOST:PORT/v1/stream DEVICE…\n".utf8))
    exit(2)
}
var configuration = ClientConfiguration()
if let token = ProcessInfo.processInfo.environment["LOCSTREAM_TOKEN"] {
    configuration.tokenProvider = { @Sendable in token }
}
let webSockets = try await WebSocketClient.start()
let client = LocstreamClient(
    transport: LWSTransport(client: webSockets, url: arguments[0]),
    configuration: configuration)
do {
    for try await update in client.locations(of: Array(arguments.dropFirst())) {
        switch update {
        case .location(let location): say("\(location.device) \(location.lat) \(location.lon) seq \(location.seq)")
        case .left(let device): say("\(device) left")
        case .snapshotEnd: say("-- live")
        case .reconnecting(let attempt, let delay): say("-- reconnecting in \(delay) (attempt \(attempt))")
        case .resumed(let gaps): say("-- resumed" + (gaps.isEmpty ? "" : ", missed seqs of \(gaps.keys.sorted())"))
        }
    }
} catch {
    FileHandle.standardError.write(Data("follow: \(error)\n".utf8))
    exit(1)
}
