#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a key or secret file whole, refusing anything too large to be a key (so a
/// mistaken `/dev/zero` or log file fails fast instead of filling memory).
enum KeyFile {
    /// The largest file accepted; PEM keys and secrets are a few kilobytes at most.
    static let maximumBytes = 64 * 1024

    /// The file's bytes.
    ///
    /// - Throws: `JWTKeyError.unreadable` with the path and the system's reason.
    static func contents(atPath path: String) throws(JWTKeyError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(errno, "cannot open \(path)") }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= maximumBytes {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw failure(code, "cannot read \(path)")
            }
            bytes += chunk[0..<count]
        }
        throw JWTKeyError(.unreadable, "\(path) is larger than \(maximumBytes / 1024) KiB, too large for a key")
    }

    /// An `unreadable` error carrying the system's text for `code` (an `errno` value).
    private static func failure(_ code: Int32, _ what: String) -> JWTKeyError {
        JWTKeyError(.unreadable, "\(what): \(String(cString: strerror(code)))")
    }
}
