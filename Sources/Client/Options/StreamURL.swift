import Foundation
import OptionParsing
import WebSocketTransport

/// The server URL a subcommand connects to.
enum StreamURL {
    /// The stream endpoint's path, used when the URL names only the server.
    static let defaultPath = "/v1/stream"

    /// Checks that `text` is a `ws://` or `wss://` URL and, when it has no path (as in
    /// `ws://localhost:8080`), points it at `/v1/stream`. The query (`?token=…`) is kept.
    static func normalize(_ text: String) throws(UsageError) -> String {
        do {
            _ = try WebSocketURL(text)
        } catch {
            throw UsageError("URL must be a ws:// or wss:// URL with a host, not '\(text)'")
        }
        guard var components = URLComponents(string: text) else {
            throw UsageError("URL must be a ws:// or wss:// URL with a host, not '\(text)'")
        }
        if components.percentEncodedPath.isEmpty || components.percentEncodedPath == "/" {
            components.percentEncodedPath = defaultPath
        }
        return components.string ?? text
    }
}
