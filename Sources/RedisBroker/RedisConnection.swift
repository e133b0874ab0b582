import CHiredis
import Glibc

/// One hiredis connection to Redis, blocking with a timeout on every read and write.
///
/// It belongs to the thread that opened it: it is neither `Sendable` nor locked, and
/// each link (`RedisCommandLink`, `RedisSubscriberLink`) opens and uses its own on its
/// own thread.
final class RedisConnection {
    private let context: UnsafeMutablePointer<redisContext>

    /// Connects to `endpoint`, authenticates, selects its database and checks that
    /// Redis answers; every later read or write gives up after `timeout`.
    init(_ endpoint: RedisEndpoint, timeout: Duration) throws(RedisFailure) {
        let limit = Self.timeval(timeout)
        guard let context = redisConnectWithTimeout(endpoint.host, Int32(endpoint.port), limit) else {
            throw RedisFailure("cannot allocate a hiredis context")
        }
        self.context = context
        guard context.pointee.err == 0 else { throw failure("cannot connect to \(endpoint.host):\(endpoint.port)") }
        redisSetTimeout(context, limit)
        redisEnableKeepAlive(context)
        if let password = endpoint.password {
            let words = endpoint.user.map { ["AUTH", $0, password] } ?? ["AUTH", password]
            try expectOK(RedisCommand(words), doing: "AUTH")
        }
        if endpoint.database != 0 {
            try expectOK(RedisCommand("SELECT", String(endpoint.database)), doing: "SELECT")
        }
        // A Redis that wants a password we lack answers commands with NOAUTH: fail now.
        try expectOK(RedisCommand("PING"), doing: "PING")
    }

    deinit { redisFree(context) }

    /// The socket, for `poll`.
    var fileDescriptor: Int32 { context.pointee.fd }

    /// Queues `command` in the output buffer; `flush` or `nextReply` sends it.
    func append(_ command: RedisCommand) {
        let lengths = command.arguments.map(\.count)
        let joined = command.arguments.flatMap { $0 }
        joined.withUnsafeBufferPointer { bytes in
            guard let start = bytes.baseAddress else { return }
            let base = UnsafeRawPointer(start)
            var offset = 0
            let pointers: [UnsafePointer<CChar>?] = lengths.map { length in
                defer { offset += length }
                return (base + offset).assumingMemoryBound(to: CChar.self)
            }
            pointers.withUnsafeBufferPointer { argv in
                lengths.withUnsafeBufferPointer { argvlen in
                    _ = redisAppendCommandArgv(
                        context, Int32(lengths.count), UnsafeMutablePointer(mutating: argv.baseAddress),
                        argvlen.baseAddress)
                }
            }
        }
    }

    /// Writes everything queued.
    func flush() throws(RedisFailure) {
        var done: Int32 = 0
        while done == 0 {
            guard redisBufferWrite(context, &done) == REDIS_OK else { throw failure("write failed") }
        }
    }

    /// Sends what is queued and waits for the next reply.
    func nextReply() throws(RedisFailure) -> RedisReply {
        var raw: UnsafeMutableRawPointer?
        guard redisGetReply(context, &raw) == REDIS_OK, let raw else { throw failure("read failed") }
        defer { freeReplyObject(raw) }
        return RedisReply(raw.assumingMemoryBound(to: redisReply.self))
    }

    /// Reads what the socket holds now (call it when `poll` says it is readable).
    func readAvailable() throws(RedisFailure) {
        guard redisBufferRead(context) == REDIS_OK else { throw failure("read failed") }
    }

    /// The next reply already read, if a whole one is buffered.
    func bufferedReply() throws(RedisFailure) -> RedisReply? {
        var raw: UnsafeMutableRawPointer?
        guard redisGetReplyFromReader(context, &raw) == REDIS_OK else { throw failure("protocol error") }
        guard let raw else { return nil }
        defer { freeReplyObject(raw) }
        return RedisReply(raw.assumingMemoryBound(to: redisReply.self))
    }

    /// Runs one command and returns its reply, an error reply included.
    func call(_ command: RedisCommand) throws(RedisFailure) -> RedisReply {
        append(command)
        return try nextReply()
    }

    private func expectOK(_ command: RedisCommand, doing what: String) throws(RedisFailure) {
        let reply = try call(command)
        if let message = reply.errorMessage { throw RedisFailure("\(what) refused: \(message)") }
    }

    private func failure(_ what: String) -> RedisFailure {
        let reason = withUnsafeBytes(of: context.pointee.errstr) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return RedisFailure(reason.isEmpty ? what : "\(what): \(reason)")
    }

    private static func timeval(_ duration: Duration) -> Glibc.timeval {
        let microseconds = duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
        return Glibc.timeval(tv_sec: Int(microseconds / 1_000_000), tv_usec: Int(microseconds % 1_000_000))
    }
}
