import Foundation

/// Free TCP ports on 127.0.0.1, for helper processes that cannot pick their own.
package enum LoopbackPort {
    /// A port that was free a moment ago (bound to port 0, read back, released).
    package static func free() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoopbackPortError.unavailable }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw LoopbackPortError.unavailable }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    package enum LoopbackPortError: Error { case unavailable }
}
