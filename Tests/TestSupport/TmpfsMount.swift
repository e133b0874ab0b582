import Foundation

/// A tmpfs of its own on a fresh temporary directory, for tests of a full or read-only
/// file system (the tests run as root). It is unmounted (lazily, so a process still
/// holding a file cannot keep it) and its directory removed when the value goes away,
/// also when the test failed.
package final class TmpfsMount: Sendable {
    /// The mount point.
    package let path: String
    private let directory: TemporaryDirectory

    /// Mounts a tmpfs with `options` (such as `size=2m` or `ro,size=1m`); nil, after
    /// printing `skipped: <test>: ...` with the reason, where mounting is not possible.
    package init?(options: String, for test: String) throws {
        directory = try TemporaryDirectory(prefix: "locstream-tmpfs")
        path = directory.url.appendingPathComponent("mnt").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let mount = try CommandResult.run(
            URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", options, "tmpfs", path])
        guard mount.status == 0 else {
            print("skipped: \(test): cannot mount a tmpfs here (\(mount.stderr.trimmingCharacters(in: .newlines)))")
            return nil
        }
    }

    deinit {
        _ = try? CommandResult.run(URL(fileURLWithPath: "/bin/umount"), ["-l", path])
    }

    /// The bytes still free on the file system.
    package var freeBytes: Int {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return 0 }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }

    /// Fills the file system with a file `name` until `leaving` bytes are free; returns
    /// its path (delete it to give the space back). It writes in steps, watching the free
    /// space, because a server on the mount may be writing at the same time: if the disk
    /// fills before the file is done, the file gives `leaving` bytes back.
    package func fill(_ name: String = "filler", leaving: Int) throws -> String {
        let filler = path + "/" + name
        let descriptor = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        let step = [UInt8](repeating: 1, count: 64 * 1024)
        var written = 0
        while freeBytes > leaving {
            let count = min(step.count, freeBytes - leaving)
            let result = step.withUnsafeBytes { write(descriptor, $0.baseAddress, count) }
            guard result < 0 else {
                written += result
                continue
            }
            guard errno == ENOSPC else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            _ = ftruncate(descriptor, off_t(max(written - leaving, 0)))
            break
        }
        return filler
    }
}
