import Foundation

/// The open-file limit, which caps how many connections one process can hold.
enum FileLimit {
    /// Descriptors kept free for everything else (the lws contexts, /proc reads, output files).
    static let reserve = 64

    /// Raises the soft limit so `connections` sockets fit; throws, naming `option`, when even
    /// the hard limit is too low (the command line asked for too much).
    static func ensure(_ connections: Int, option: String) throws(BenchFailure) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        let needed = rlim_t(connections + reserve)
        guard limit.rlim_cur < needed else { return }
        guard limit.rlim_max >= needed else {
            throw BenchFailure(
                "\(option): \(connections) connections need \(needed) open files, but this process may open at most "
                    + "\(limit.rlim_max) (ulimit -Hn); use fewer, or several bench processes")
        }
        limit.rlim_cur = needed
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
