import LocstreamProtocol

/// The timers of a connection's token, on the node's `TimerQueue`: the deadline by
/// which an unauthenticated connection must send a valid token, or, once it has one,
/// the warning shortly before the token expires and the 1008 close at expiry. A
/// refresh replaces the watch; `cancel` stops it.
struct TokenWatch {
    private let queue: TimerQueue
    private let timers: [TimerQueue.Timer]

    /// Watches a token with `remaining` time left (`Claims.timeLeft`, clamped to ±100
    /// years, so the sums below cannot overflow). With less than the warning lead left,
    /// the warning goes out now, after whatever the caller has sent.
    static func expiry(
        remaining: Duration, authentication: TokenAuthentication, sink: any FrameSink, queue: TimerQueue
    ) -> TokenWatch {
        let warnIn = remaining - authentication.warningLead
        var timers: [TimerQueue.Timer] = []
        if warnIn > .zero {
            timers.append(queue.schedule(after: warnIn) { sendWarning(to: sink) })
        } else {
            sendWarning(to: sink)
        }
        timers.append(
            queue.schedule(after: remaining + authentication.leeway) {
                sink.close(code: 1008, reason: "token expired")
            })
        return TokenWatch(queue: queue, timers: timers)
    }

    /// Sends `token expiring`, encoded only now: a frame made when the watch starts would
    /// be kept by every authenticated connection for the token's whole life.
    private static func sendWarning(to sink: any FrameSink) {
        sink.sendControl(ServerMessage.error(ProtocolError(.unauthorized, "token expiring")).encoded())
    }

    /// Closes the connection with 1008 unless cancelled (by a valid token) within `timeout`.
    static func deadline(_ timeout: Duration, sink: any FrameSink, queue: TimerQueue) -> TokenWatch {
        let timer = queue.schedule(after: timeout) { sink.close(code: 1008, reason: "no valid token in time") }
        return TokenWatch(queue: queue, timers: [timer])
    }

    /// Stops the watch: what has not fired yet never will.
    func cancel() {
        for timer in timers { queue.cancel(timer) }
    }
}
