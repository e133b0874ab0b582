import CWebsockets

/// The lws-thread side of a server or client: it creates the context and answers
/// its callbacks. It lives, and is used, only on its service thread.
///
/// `ServerLoop` and `ClientLoop` conform; what they share is here as default
/// implementations: the C entry point's forwarding, the libev set-up, the mailbox
/// drain and the write of a WRITEABLE. They call it on their concrete type, so it is
/// dispatched statically.
protocol ServiceLoop: AnyObject {
    /// What other threads ask of this loop beside "look at this connection".
    associatedtype Command: Sendable

    /// Where other threads post connection ids, commands and jobs for this loop.
    var mailbox: LoopMailbox<Command> { get }
    /// The executor whose jobs this loop runs on its thread.
    var executor: ServiceExecutor { get }
    /// The one writer this loop's WRITEABLE callbacks use.
    var writer: CorkedWriter { get }
    /// The libev loop the context runs on, or nil for lws's own `poll()`. It must
    /// outlive the context; `lend(to:eventLoop:)` sets it.
    var libev: LibevLoop? { get set }

    /// Creates the lws context; returns it and the port it listens on (0 for none).
    func createContext() -> Result<(context: OpaquePointer, port: Int), TransportError>
    /// Answers one lws callback other than `LWS_CALLBACK_EVENT_WAIT_CANCELLED`.
    func handle(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Int32
    /// Runs a command another thread posted.
    func perform(_ command: Command)
    /// Connection `id` was posted: it has frames to write, reading to resume, or a
    /// response ready.
    func serviceRequested(for id: ConnectionID)
    /// One turn of the loop (`service`) on `context` has ended: every callback of the
    /// events it waited for has run.
    func serviceTurnEnded(_ context: OpaquePointer)
    /// The WebSockets that received in this turn, in order, for `readAhead`.
    var busyReaders: [ConnectionID] { get set }
    /// The open WebSocket `id`, if it is one of this loop's.
    func liveSocket(_ id: ConnectionID) -> LiveSocket?
}

extension ServiceLoop {
    /// The body of a loop's C entry point. The context's user pointer is the loop
    /// (unretained: the loop outlives its context, see `ServiceThread.run`); a wake-up
    /// drains the mailbox, every other callback goes to `handle`. Each loop's entry
    /// point is a closure that calls this on its own type, since a C function pointer
    /// cannot be generic.
    static func forward(
        _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Int32 {
        guard let wsi, let context = lws_get_context(wsi), let owner = lws_context_user(context) else { return 0 }
        let loop = Unmanaged<Self>.fromOpaque(owner).takeUnretainedValue()
        if reason == LWS_CALLBACK_EVENT_WAIT_CANCELLED {
            loop.serviceMailbox()
            return 0
        }
        return loop.handle(wsi, reason, user, input, length)
    }

    /// Makes this loop the context's user pointer (what `forward` finds) and, for
    /// `.libev`, runs the context on a libev loop of this loop's own. Call it after
    /// `info.options` is set; returns why not when libev cannot make a loop.
    func lend(to info: inout lws_context_creation_info, eventLoop: EventLoopKind) -> TransportError? {
        info.user = Unmanaged.passUnretained(self).toOpaque()
        guard eventLoop == .libev else { return nil }
        guard let libev = LibevLoop() else { return .contextCreationFailed("libev cannot create an epoll loop") }
        self.libev = libev
        libev.lend(to: &info)
        return nil
    }

    /// How many more reads a busy WebSocket gets at the end of a turn (see `readAhead`):
    /// 256 reads of about 1 KiB in all. Fewer starve ingest past the peak: with 15, 1,000
    /// subscribers offered 600k frames/s got 137k-170k, with 63 251k-273k, with 255
    /// 278k-306k (one ABBA pair each).
    var extraReadsPerTurn: Int { 255 }
    /// How many reads `readAhead` makes in one turn over all sockets (about 1 MiB), so that
    /// many busy publishers together cannot stretch a turn, and every subscriber's wait.
    var readAheadBudget: Int { 1024 }

    /// `socket` (`id`) received in this turn: `readAhead` reads it again.
    func noteReceived(on socket: LiveSocket, id: ConnectionID) {
        if socket.mayReadAgain, busyReaders.last != id { busyReaders.append(id) }
    }

    /// Reads every WebSocket that received in this turn again, up to `extraReadsPerTurn`
    /// times, until a read brings nothing or `readAheadBudget` reads are made, a round of
    /// one read per socket at a time. Call it when the turn ends.
    ///
    /// lws reads a WebSocket at most `rx_buffer_size` per turn (1 KiB, kept small since
    /// every connection holds one). A server turn that writes to many subscribers lasts
    /// milliseconds, so a publisher was read 1 KiB a turn: ingest, not the writes, set
    /// the peak, and each turn's few updates went out one frame per write; a client
    /// behind on a busy connection was likewise fed 1 KiB a turn. A read here is what the
    /// event loop does on POLLIN (`LiveSocket.readAgain`), so a paused connection is
    /// skipped by lws, and a socket with nothing more costs one `recv`. A connection is
    /// paused once its consumer has `InboundQueue.highWatermark` messages unread, so
    /// reading ahead never queues more than that.
    func readAhead(in context: OpaquePointer) {
        var budget = readAheadBudget
        for _ in 0..<extraReadsPerTurn where !busyReaders.isEmpty && budget > 0 {
            let round = busyReaders.prefix(budget)
            busyReaders.removeAll(keepingCapacity: true)
            budget -= round.count
            // A read may close its connection (and end `liveSocket(id)`).
            for id in round { liveSocket(id)?.readAgain(in: context) }
        }
        busyReaders.removeAll(keepingCapacity: true)
    }

    /// Waits for events and services them once; false when the context failed.
    func service(_ context: OpaquePointer) -> Bool {
        guard let libev else { return lws_service(context, 0) >= 0 }
        libev.turn(context)
        return true
    }

    /// Runs everything posted since the last wake-up: commands first, then the urgent
    /// jobs (the answers to a subscriber's messages) and the writes they queued, then the
    /// writes to the connections that asked to be looked at, then the other jobs of the
    /// tasks on this thread (delivery, and the answers to publishers); and again, for
    /// what those posted, until the mailbox is empty. Writes go first, so the frames
    /// already queued leave before jobs queue more.
    ///
    /// A drain lasts about one `drainSlice`: the writes and jobs not done by then go back
    /// to the mailbox, first in line, and the loop is woken once more and returns, so
    /// that a burst of deliveries keeps neither the sockets (a switch waiting to be read)
    /// nor jobs that keep posting waiting longer than that. Delivery also stops for an
    /// urgent job posted meanwhile (a switch's opening read, done), which then runs first.
    func serviceMailbox() {
        let deadline = ContinuousClock.now + drainSlice
        while ContinuousClock.now < deadline {
            guard let work = mailbox.drain() else { return }
            for command in work.commands { perform(command) }
            runUrgent(work.urgentJobs)
            let connectionsLeft = runUntilInterrupted(work.connections, deadline: deadline) {
                serviceRequested(for: $0)
            }
            let jobsLeft =
                connectionsLeft.isEmpty
                ? runUntilInterrupted(work.jobs, deadline: deadline) { executor.run($0) } : work.jobs[...]
            mailbox.putBack(jobs: jobsLeft, connections: connectionsLeft)
        }
        mailbox.waker.wake()
    }

    /// Runs urgent `jobs`, then writes at once to the connections they queued frames for
    /// (a switch's ack), ahead of the delivery writes already waiting.
    private func runUrgent(_ jobs: [UnownedJob]) {
        guard !jobs.isEmpty else { return }
        let mark = mailbox.connectionMark
        for job in jobs { executor.run(job) }
        for id in mailbox.takeConnections(postedAfter: mark) { serviceRequested(for: id) }
    }

    /// Does `step` for each of `items` in order until the slice ends at `deadline` or an
    /// urgent job is posted; returns the items left.
    private func runUntilInterrupted<Item>(
        _ items: [Item], deadline: ContinuousClock.Instant, _ step: (Item) -> Void
    ) -> ArraySlice<Item> {
        for index in items.indices {
            step(items[index])
            if ContinuousClock.now >= deadline || mailbox.hasUrgentJobs { return items[(index + 1)...] }
        }
        return []
    }

    /// How long one wake-up drains the mailbox at most: about 8 frames written one write
    /// each, or a hundred corked. A switch read while frames fan out waits up to a slice:
    /// at 2,000 switches/s under 20k frames/s, 100 µs gave a switch-ack p99 of 0.56-0.80 ms
    /// against 0.94-1.98 with 250 µs (two ABBA sets of 4 runs each), at the same CPU per
    /// frame and the same peak (`deploy/loadtest/results/fanout.md`, 6 December evening).
    var drainSlice: Duration { .microseconds(100) }

    /// The loop has stopped: jobs still queued, and any enqueued later, run on the
    /// global concurrent executor, so their tasks end.
    func stopExecutor() {
        for job in mailbox.stop() { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }

    /// Writes `socket`'s queue: one write of up to `byteBudget` bytes, corked or one
    /// frame, reported to `observer`; in answer to WRITEABLE, or at once (`atWriteable`
    /// false) when the socket was found ready. Returns what the callback returns to lws.
    func write(
        _ socket: LiveSocket, byteBudget: Int, corked: Bool, observer: (any TransportObserver)?,
        atWriteable: Bool = true
    ) -> Int32 {
        let (result, written) =
            atWriteable
            ? socket.writeable(with: writer, byteBudget: byteBudget, corked: corked)
            : socket.writeNext(with: writer, byteBudget: byteBudget, corked: corked)
        if !written.isEmpty {
            observer?.batchWritten(
                frames: written.count, bytes: written.reduce(0) { $0 + FrameEncoder.wireCount(of: $1) })
        }
        return result
    }
}
