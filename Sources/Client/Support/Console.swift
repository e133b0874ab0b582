import Foundation

/// Where the client's human output goes: stdout for results, stderr for status and errors.
///
/// Each line is written with one `write(2)`, unbuffered, so lines from concurrent tasks never
/// interleave and a pipe sees every line as soon as it is printed.
enum Console {
    /// Writes `line` and a newline to standard output.
    static func out(_ line: String) {
        write(line, to: STDOUT_FILENO)
    }

    /// Writes `stream-client: ` + `line` and a newline to standard error.
    static func error(_ line: String) {
        write("stream-client: " + line, to: STDERR_FILENO)
    }

    /// Writes a multi-line text (help) to standard output or standard error, unprefixed.
    static func text(_ text: String, toStandardError: Bool = false) {
        write(text, to: toStandardError ? STDERR_FILENO : STDOUT_FILENO)
    }

    private static func write(_ line: String, to descriptor: Int32) {
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Foundation.write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}
