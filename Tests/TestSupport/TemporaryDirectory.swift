import Foundation

/// A fresh directory under the system's temporary directory, removed when the value is
/// deinitialised.
package final class TemporaryDirectory: Sendable {
    /// The directory.
    package let url: URL

    /// Creates the directory, named `prefix-UUID`.
    package init(prefix: String = "locstream-test") throws {
        url = try Self.lasting(prefix: prefix)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Creates a directory named `prefix-UUID` that outlives the test (for files a child
    /// process may still read after the caller returns) and returns it.
    package static func lasting(prefix: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Writes `bytes` to a file called `name` in the directory and returns its path.
    package func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let fileURL = url.appendingPathComponent(name)
        try Data(bytes).write(to: fileURL)
        return fileURL.path
    }

    /// Writes `text` to a file called `name` in the directory and returns its path.
    package func file(_ name: String, _ text: String) throws -> String {
        try file(name, Array(text.utf8))
    }
}
