import Foundation

/// A fresh directory under the system's temporary directory, removed when the value is
/// deinitialised.
final class TemporaryDirectory: Sendable {
    /// The directory.
    let url: URL

    /// Creates the directory.
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("authtests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes `bytes` to a file called `name` in the directory and returns its path.
    func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let fileURL = url.appendingPathComponent(name)
        try Data(bytes).write(to: fileURL)
        return fileURL.path
    }

    /// Writes `text` to a file called `name` in the directory and returns its path.
    func file(_ name: String, _ text: String) throws -> String {
        try file(name, Array(text.utf8))
    }
}
