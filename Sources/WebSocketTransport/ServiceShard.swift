/// One service thread's place among a server's `count` threads (`--threads`).
struct ServiceShard: Sendable {
    /// 0 ..< count.
    let index: Int
    let count: Int

    /// With one thread, its lws context listens itself; with more, a `SocketAcceptor`
    /// listens and hands the sockets over.
    var listens: Bool { count == 1 }
}
