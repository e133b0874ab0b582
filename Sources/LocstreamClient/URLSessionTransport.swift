import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The Foundation transport: `URLSessionWebSocketTask`, for Apple platforms. It compiles on
/// Linux too, where it fails at run time: Debian's libcurl has no WebSocket support.
public struct URLSessionTransport: LocstreamTransport {
    /// The stream URL, `ws://…/v1/stream` or `wss://…/v1/stream`.
    public let url: URL
    private let session: URLSession

    /// Connections to `url` through `session`.
    public init(url: URL, session: URLSession = .shared) {
        self.url = url
        self.session = session
    }

    /// Opens one connection; returns once the server's `welcome` has arrived, which proves
    /// the handshake went through.
    public func connect(token: String?) async throws -> any LocstreamConnection {
        var request = URLRequest(url: url)
        request.setValue("locstream.v1", forHTTPHeaderField: "Sec-WebSocket-Protocol")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let task = session.webSocketTask(with: request)
        task.resume()
        do {
            _ = try await task.receive()
        } catch {
            task.cancel(with: .abnormalClosure, reason: nil)
            throw error
        }
        return URLSessionConnection(task: task)
    }
}

/// A `URLSessionWebSocketTask` seen as a `LocstreamConnection`.
struct URLSessionConnection: LocstreamConnection {
    let task: URLSessionWebSocketTask

    func send(_ text: [UInt8]) {
        // The task writes messages in the order they were handed to it; a failed send ends
        // the connection, which `receive` reports.
        task.send(.string(String(decoding: text, as: UTF8.self))) { _ in }
    }

    func receive() async -> [UInt8]? {
        switch try? await task.receive() {
        case .string(let text)?: Array(text.utf8)
        case .data(let data)?: Array(data)
        case nil: nil
        @unknown default: nil
        }
    }

    func close() {
        task.cancel(with: .normalClosure, reason: nil)
    }

    var closeCode: UInt16? { task.closeCode == .invalid ? nil : UInt16(exactly: task.closeCode.rawValue) }
}
