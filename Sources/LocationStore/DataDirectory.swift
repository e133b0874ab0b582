import Foundation
import Synchronization

/// The store's directory, claimed for one store: created if missing, proven writable
/// (by creating and removing a file, which also catches read-only and immutable file
/// systems, where permission bits say nothing to root), and locked with `flock` on its
/// `LOCK` file, so a second server on the same directory is refused instead of
/// corrupting seqs. The lock goes when the store closes or the process dies.
final class DataDirectory: Sendable {
    /// The directory.
    let path: String
    /// The database file inside it.
    var databasePath: String { path + "/locstream.db" }
    private let lock: Atomic<Int32>

    /// Claims `path`.
    init(_ path: String) throws(StoreError) {
        self.path = path
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw StoreError(
                .cannotCreateDirectory, path: path, reason: "cannot create the data directory: \(Self.describe(error))")
        }
        let probe = path + "/.write-probe"
        let probed = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard probed >= 0 else {
            throw StoreError(.notWritable, path: path, reason: "cannot write in the data directory: \(Self.errno())")
        }
        close(probed)
        unlink(probe)
        let lockPath = path + "/LOCK"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(.notWritable, path: lockPath, reason: "cannot open the lock file: \(Self.errno())")
        }
        guard Self.lock(descriptor, waitingAtMost: .seconds(1)) else {
            let reason = Self.errno()
            close(descriptor)
            throw StoreError(
                .inUse, path: path,
                reason:
                    "the data directory is in use by another store: another locstream server, or one still stopping (\(reason)); each server needs a --data-dir of its own"
            )
        }
        lock = Atomic(descriptor)
    }

    deinit {
        release()
    }

    /// Takes the lock on `descriptor`, trying again every 20 ms for at most `patience`:
    /// a server still stopping on the same directory (or a process being started, which
    /// holds a copy of every descriptor until it execs) gets that long to let go.
    private static func lock(_ descriptor: Int32, waitingAtMost patience: Duration) -> Bool {
        let deadline = ContinuousClock.now + patience
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard Glibc.errno == EWOULDBLOCK, ContinuousClock.now < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return true
    }

    /// Gives up the directory (closing the lock file unlocks it); later calls do nothing.
    func release() {
        let descriptor = lock.exchange(-1, ordering: .acquiringAndReleasing)
        if descriptor >= 0 { close(descriptor) }
    }

    /// The bytes of the database and its WAL (0 for a missing file).
    var sizeInBytes: Int {
        [databasePath, databasePath + "-wal"].reduce(0) { total, file in
            var info = stat()
            return total + (stat(file, &info) == 0 ? Int(info.st_size) : 0)
        }
    }

    private static func errno() -> String {
        String(cString: strerror(Glibc.errno))
    }

    private static func describe(_ error: any Error) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        return underlying.map { String(cString: strerror(Int32($0.code))) } ?? error.localizedDescription
    }
}
