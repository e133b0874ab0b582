import CWebsockets
import Locking

/// A WebSocket a service loop is serving: the lws handle, the shared channel, and the
/// message being assembled. Server and client loops share it; it lives on, and is used
/// by, the service thread only.
final class LiveSocket {
    let wsi: OpaquePointer
    let channel: ConnectionChannel
    private var assembler: MessageAssembler
    /// lws 4.1.6 mishandles `lws_rx_flow_control(wsi, 0)` on TLS connections: bytes
    /// OpenSSL already holds keep the connection serviced, and lws spins appending them
    /// to its buffer list. So a TLS connection is never paused; its queue is capped at
    /// `InboundQueue.unpausableLimit` instead, and a peer that outruns it is closed.
    private let canPauseReading: Bool
    private var closeDeadlineSet = false
    /// Bytes were read since the last WRITEABLE. lws answers a ping, or a close, from its
    /// own WRITEABLE handling, and a frame written at once would overtake that answer
    /// (an echoed message before the pong of a ping sent ahead of it); so until the next
    /// WRITEABLE, queued frames wait for it.
    private var hasReadSinceWriteable = false
    /// When this socket was last written to.
    private var lastWrite = ContinuousClock.now
    /// A socket written to less than this long ago waits for WRITEABLE instead of being
    /// written at once: under load, frames then gather into one corked write per loop
    /// turn (a write costs far more than framing another frame into it), while a quiet
    /// connection still gets each frame at once.
    static let directWriteGap = Duration.milliseconds(1)
    /// How long a closing connection may take to flush before it is dropped.
    static let closeGraceSeconds: Int32 = 5

    /// The peer's address (server side; empty for client connections).
    let remoteAddress: String
    /// Whether a waiting consumer is woken once per loop turn (`wakeConsumer`, client side)
    /// instead of at each message: a turn reads up to 256 KiB of a busy socket
    /// (`ServiceLoop.readAhead`), often hundreds of messages, and one wake-up then takes
    /// them all.
    let defersWake: Bool
    /// A consumer waits and the loop must call `wakeConsumer` at the end of its turn.
    private(set) var wakePending = false

    init(
        wsi: OpaquePointer, channel: ConnectionChannel, maxMessageBytes: Int, remoteAddress: String = "",
        defersWake: Bool = false
    ) {
        self.wsi = wsi
        self.channel = channel
        self.remoteAddress = remoteAddress
        self.defersWake = defersWake
        assembler = MessageAssembler(limit: maxMessageBytes)
        canPauseReading = lws_is_ssl(wsi) == 0
    }

    /// Handles one RECEIVE chunk. Returns nil to go on, or the close to send (the
    /// caller then returns -1 to lws): 1009 for a message over the size limit, 1008
    /// for a TLS peer that outran its consumer.
    func receive(_ input: UnsafeMutableRawPointer?, _ length: Int) -> CloseRequest? {
        hasReadSinceWriteable = true
        let chunk = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
        let isFinal = lws_is_final_fragment(wsi) != 0
        switch assembler.append(chunk, isFinal: isFinal, isBinary: lws_frame_is_binary(wsi) != 0) {
        case .tooLarge:
            return refuse(CloseRequest(code: 1009, reason: "message too large"))
        case .partial:
            return nil
        case .complete(let message):
            let canPause = canPauseReading
            let defers = defersWake
            let channel = self.channel
            let (pause, overrun, wake) = channel.inbound.withLock { queue in
                let full: Bool
                var wake = false
                if defers {
                    (full, wake) = queue.deliverDeferringWake(message)
                } else {
                    // Server side: the first message since the handler parked starts a drain.
                    // It starts under the lock so that `drain` is stored before the task can
                    // park again (which clears it), whichever thread the task runs on.
                    let handler: (parcel: Parcel<any MessageHandler>, priority: TaskPriority)?
                    (full, handler) = queue.deliver(message)
                    if let handler {
                        queue.drain = MessageDrain.start(handler.parcel, at: handler.priority, on: channel)
                    }
                }
                let pause = full && canPause && !queue.isReadingPaused
                if pause { queue.isReadingPaused = true }
                return (pause, !canPause && queue.count >= InboundQueue.unpausableLimit, wake)
            }
            if wake { wakePending = true }
            if pause { lws_rx_flow_control(wsi, 0) }
            return overrun ? refuse(CloseRequest(code: 1008, reason: "too many unread messages")) : nil
        }
    }

    /// Whether the loop may read this socket more than once a turn
    /// (`ServiceLoop.readAhead`): only a socket whose reading can be paused, so reading
    /// faster never outruns its consumer.
    var mayReadAgain: Bool { canPauseReading }

    /// Reads the socket once more, as the event loop does on POLLIN. lws skips a paused
    /// socket, a read that finds nothing leaves it as it was, and one that finds the peer
    /// gone closes the connection.
    func readAgain(in context: OpaquePointer) {
        var event = pollfd(fd: lws_get_socket_fd(wsi), events: Int16(POLLIN), revents: Int16(POLLIN))
        _ = lws_service_fd(context, &event)
    }

    /// Resumes the consumer a deferred wake left waiting (see `defersWake`).
    func wakeConsumer() {
        guard wakePending else { return }
        wakePending = false
        if let (waiter, message) = channel.inbound.withLock({ $0.wake() }) { waiter.resume(returning: message) }
    }

    private func refuse(_ close: CloseRequest) -> CloseRequest {
        setCloseReason(close)
        return close
    }

    /// Answers WRITEABLE: writes the next batch (see `writeNext`); lws has written its
    /// own answers (pong, close) by now.
    func writeable(with writer: CorkedWriter, byteBudget: Int, corked: Bool) -> (
        result: Int32, written: [OutboundFrame]
    ) {
        hasReadSinceWriteable = false
        return writeNext(with: writer, byteBudget: byteBudget, corked: corked)
    }

    /// Writes the next batch with one `lws_write` (corked, or one frame when not), or
    /// performs the pending close once the queue is empty. Returns -1 when lws must
    /// close the connection, and what was written.
    func writeNext(with writer: CorkedWriter, byteBudget: Int, corked: Bool) -> (
        result: Int32, written: [OutboundFrame]
    ) {
        let (batch, close, more) = nextWrite(byteBudget: byteBudget)
        if let close {
            setCloseReason(close)
            return (-1, [])
        }
        if !batch.isEmpty {
            lastWrite = .now
            if !writer.write(batch, to: wsi, corked: corked) { return (-1, []) }
        }
        if more { lws_callback_on_writable(wsi) }
        return (0, batch)
    }

    /// Takes the next batch to write, or the close to perform once the queue is empty.
    /// `more` says whether another WRITEABLE is needed after this one.
    private func nextWrite(byteBudget: Int) -> (batch: [OutboundFrame], close: CloseRequest?, more: Bool) {
        typealias Next = ([OutboundFrame], CloseRequest?, Bool, UnsafeContinuation<Void, Never>?)
        let (batch, close, more, waiter) = channel.outbox.withLock { outbox -> Next in
            let batch = outbox.takeBatch(byteBudget: byteBudget)
            let waiter = outbox.takeRoomWaiter()
            if batch.isEmpty, let close = outbox.pendingClose { return ([], close, false, waiter) }
            let more = outbox.hasQueuedFrames || outbox.pendingClose != nil
            if !more { outbox.isScheduled = false }
            return (batch, nil, more, waiter)
        }
        waiter?.resume()
        return (batch, close, more)
    }

    /// Resumes reading if the consumer asked for it and gives a pending close a
    /// deadline. Then, when `mayWriteAtOnce`, the socket was not written to within
    /// `directWriteGap` and can take bytes now (nothing buffered by lws, no close
    /// pending), returns true: the caller writes the queue at once, with no WRITEABLE
    /// round trip. Otherwise it asks for WRITEABLE.
    func serviceRequested(mayWriteAtOnce: Bool) -> Bool {
        if !closeDeadlineSet, channel.outbox.withLock({ $0.pendingClose != nil }) {
            // A peer that does not read never lets the close frame out: give it
            // `closeGraceSeconds`, then lws drops the connection.
            closeDeadlineSet = true
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, Self.closeGraceSeconds)
        }
        let resume = channel.wantsReadingResumed.withLock { wanted in
            defer { wanted = false }
            return wanted
        }
        if resume {
            lws_rx_flow_control(wsi, 1)
        }
        // Nothing held by lws from an earlier write: the socket is written without
        // asking the kernel first (a `poll()` per frame, as `lws_send_pipe_choked`
        // does). What the socket does not take, lws keeps and sends at WRITEABLE.
        if mayWriteAtOnce, !closeDeadlineSet, !hasReadSinceWriteable,
            ContinuousClock.now - lastWrite >= Self.directWriteGap,
            lws_partial_buffered(wsi) == 0
        {
            return true
        }
        lws_callback_on_writable(wsi)
        return false
    }

    /// The peer sent a close frame: records its code and reason and returns true when
    /// lws may echo it. A malformed one (one byte, or a code no peer may send) gets
    /// 1002 instead, a reason that is not UTF-8 1007, and false, so the caller fails the
    /// connection.
    func peerClosed(_ input: UnsafeMutableRawPointer?, _ length: Int) -> Bool {
        hasReadSinceWriteable = true
        let payload = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
        if let failure = PeerCloseCheck.failure(of: payload) {
            setCloseReason(failure)
            return false
        }
        guard payload.count >= 2 else { return true }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        let reason = String(decoding: payload.dropFirst(2), as: UTF8.self)
        channel.peerClose.withLock { $0 = CloseRequest(code: code, reason: reason) }
        return true
    }

    /// The close this side sent, if any.
    private(set) var sentClose: CloseRequest?

    /// The close code the connection ended with: sent, else received, else 1006.
    var closeCode: UInt16 { sentClose?.code ?? channel.peerClose.withLock { $0?.code } ?? 1006 }

    /// Sets the close frame lws sends when the callback returns -1.
    func setCloseReason(_ close: CloseRequest) {
        sentClose = close
        var reason = Array(close.reason.utf8.prefix(123))
        reason.withUnsafeMutableBufferPointer { reason in
            lws_close_reason(wsi, lws_close_status(rawValue: UInt32(close.code)), reason.baseAddress, reason.count)
        }
    }

    /// The connection is gone: end its inbound side (`ConnectionChannel.finishInbound`)
    /// and drop what was queued. No callback touches it afterwards.
    func closed() {
        channel.finishInbound()
        channel.outbox.withLock { outbox in
            _ = outbox.close()
            return outbox.takeRoomWaiter()
        }?.resume()
        lws_set_opaque_user_data(wsi, nil)
    }
}
