import Locking

/// A client's idle connections: those whose sequence has ended, kept for the next one.
final class LinkPool: Sendable {
    private let idle = Locked<[Link]>([])

    /// An empty pool.
    init() {}

    /// Keeps `link` for the next sequence.
    func park(_ link: Link) {
        idle.withLock { $0.append(link) }
    }

    /// The most recently parked link that is still open, reserved for the caller.
    func claim() -> Link? {
        idle.withLock { idle in
            while let link = idle.popLast() {
                if link.reserve() { return link }
            }
            return nil
        }
    }

    /// Forgets `link` (it has been closed).
    func remove(_ link: Link) {
        idle.withLock { $0.removeAll { $0 === link } }
    }

    /// Takes every idle link out of the pool.
    func drain() -> [Link] {
        idle.withLock { idle in
            defer { idle = [] }
            return idle
        }
    }
}
