import Foundation

/// A blocking TCP socket to 127.0.0.1, for tests that must send bytes no WebSocket
/// library would (reserved bits, bad opcodes, unmasked frames) or speak plain HTTP.
/// It may come from another loopback address (`source`, e.g. 127.0.0.2), so a test can
/// play a second peer.
package final class RawSocket {
    private let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to `127.0.0.1:port` from `source` (any local address when nil); reads
    /// time out after `timeout` seconds.
    package init(port: Int, timeout: Int = 10, source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawSocketError.failed("socket") }
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        if let source, Self.call(bind, fd, Self.address(source, port: 0)) != 0 {
            close(fd)
            throw RawSocketError.failed("bind \(source)")
        }
        guard Self.call(connect, fd, Self.address("127.0.0.1", port: port)) == 0 else {
            close(fd)
            throw RawSocketError.failed("connect")
        }
    }

    private static func address(_ host: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(host)
        return address
    }

    /// `bind` or `connect` of `fd` to `address`.
    private static func call(
        _ function: (Int32, UnsafePointer<sockaddr>?, socklen_t) -> Int32, _ fd: Int32, _ address: sockaddr_in
    ) -> Int32 {
        withUnsafePointer(to: address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                function(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }

    deinit { close(fd) }

    /// Sends all of `bytes`.
    package func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw RawSocketError.failed("send") }
            sent += n
        }
    }

    /// Exactly `count` bytes; throws `.closed` if the peer closes first.
    package func read(exactly count: Int) throws -> [UInt8] {
        while buffer.count < count { try fill() }
        defer { buffer.removeFirst(count) }
        return Array(buffer.prefix(count))
    }

    /// Bytes up to and including `delimiter`.
    package func read(until delimiter: [UInt8]) throws -> [UInt8] {
        while true {
            if let range = findRange(delimiter) {
                defer { buffer.removeFirst(range.upperBound) }
                return Array(buffer[..<range.upperBound])
            }
            try fill()
        }
    }

    /// Everything until the peer closes.
    package func readToEnd() throws -> [UInt8] {
        while (try? fill()) != nil {}
        defer { buffer = [] }
        return buffer
    }

    /// True when the peer has closed the connection (reads return end of file).
    package func isClosedByPeer() -> Bool {
        do {
            while true { try fill() }
        } catch RawSocketError.closed {
            return true
        } catch {
            return false
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n == 0 { throw RawSocketError.closed }
        if n < 0 { throw errno == EAGAIN || errno == EWOULDBLOCK ? RawSocketError.timeout : RawSocketError.closed }
        buffer += chunk.prefix(n)
    }

    private func findRange(_ needle: [UInt8]) -> Range<Int>? {
        guard buffer.count >= needle.count else { return nil }
        for start in 0...(buffer.count - needle.count) where buffer[start..<start + needle.count].elementsEqual(needle)
        {
            return start..<start + needle.count
        }
        return nil
    }
}

package enum RawSocketError: Error, Equatable {
    case failed(String)
    case closed
    case timeout
}
