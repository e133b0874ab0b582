import Glibc

/// A non-blocking pipe that wakes a link's thread from `poll`: any thread writes a
/// byte with `wake`, and the link's thread empties it with `drain`.
final class WakePipe: Sendable {
    /// The end the link's thread polls.
    let readEnd: Int32
    private let writeEnd: Int32

    init() {
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        for fd in fds { _ = fcntl(fd, F_SETFL, O_NONBLOCK) }
        (readEnd, writeEnd) = (fds[0], fds[1])
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// Wakes the polling thread (a full pipe already will).
    func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &buffer, buffer.count) > 0 {}
    }

    /// Waits up to `milliseconds` for `fd` to be readable or for a wake-up; returns
    /// whether `fd` is readable (or closed), having drained any wake-up.
    func wait(for fd: Int32, milliseconds: Int32) -> Bool {
        var fds = [
            pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0),
        ]
        _ = poll(&fds, 2, milliseconds)
        if fds[1].revents != 0 { drain() }
        return fds[0].revents != 0
    }
}
