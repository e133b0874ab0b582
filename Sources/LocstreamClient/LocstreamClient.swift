import Locking

/// A client of one locstream server: location sequences shaped for Swift concurrency, and
/// publishing.
///
/// ```swift
/// .task(id: courierID) {
///     for try await update in client.locations(of: [courierID]) { position = update.location }
/// }
/// ```
///
/// Each iterated sequence holds one connection. A sequence started just after another ended
/// takes over its connection with a `subscribe` of a new `sub` (the server's switch); two
/// sequences iterated at once use two connections. Publishing has a connection of its own.
public final class LocstreamClient: Sendable {
    /// How the client behaves.
    public let configuration: ClientConfiguration
    private let transport: any LocstreamTransport
    private let pool = LinkPool()
    private let publisher = Locked<Link?>(nil)
    private let subCounter = Locked<UInt64>(0)

    /// A client connecting through `transport`.
    public init(transport: any LocstreamTransport, configuration: ClientConfiguration = ClientConfiguration()) {
        self.transport = transport
        self.configuration = configuration
    }

    /// The updates of `devices` (1 to 1000 ids).
    public func locations(of devices: [String], options: SubscriptionOptions = SubscriptionOptions())
        -> LocationUpdates
    {
        LocationUpdates(client: self, target: .devices(devices), options: options)
    }

    /// The updates of every device inside `area` (the token must allow areas).
    public func locations(in area: Area, options: SubscriptionOptions = SubscriptionOptions()) -> LocationUpdates {
        LocationUpdates(client: self, target: .area(area), options: options)
    }

    /// Publishes `locations` and returns the seq the server gave each, in order, once they are
    /// stored. Long lists go in several frames, each all or nothing: when one is refused, the
    /// ones before it stay published.
    public func publish(_ locations: [Location]) async throws(LocstreamError) -> [UInt64] {
        var seqs: [UInt64] = []
        for frame in PublishFrames.encode(locations, maxBytes: configuration.maxPublishBytes) {
            let link = try await publishingLink()
            seqs += try await link.publish(frame.bytes).get()
        }
        return seqs
    }

    /// Closes the idle connections and the publishing one. Running sequences keep theirs.
    public func closeIdleConnections() {
        for link in pool.drain() { link.close() }
        publisher.withLock { $0 }?.close()
    }

    /// A `sub` id no other sequence of this client uses.
    func nextSubID() -> String {
        subCounter.withLock { counter in
            counter += 1
            return configuration.subID(counter)
        }
    }

    /// Opens a connection, with a fresh token when there is a provider.
    func open() async throws -> Link {
        do {
            let token = try await configuration.tokenProvider?()
            return Link.open(try await transport.connect(token: token), configuration: configuration)
        } catch {
            configuration.observer?(.connectFailed(error))
            throw error
        }
    }

    /// An idle connection for a new sequence, if there is one.
    func claimIdle() -> Link? { pool.claim() }

    /// Takes `link` back from `feed` (nil: from a feed that never attached it): it waits
    /// `switchWindow` for the next sequence, then unsubscribes, and closes after `idleTimeout`.
    func park(_ link: Link, from feed: Feed?) {
        guard let mark = link.detach(feed) else { return }
        pool.park(link)
        let (window, idleTimeout) = (configuration.switchWindow, configuration.idleTimeout)
        Task { [pool] in
            try? await Task.sleep(for: window)
            guard link.unsubscribeIfIdle(since: mark) else { return }
            try? await Task.sleep(for: idleTimeout)
            if link.closeIfIdle(since: mark) { pool.remove(link) }
        }
    }

    private func publishingLink() async throws(LocstreamError) -> Link {
        if let link = publisher.withLock({ $0 }), !link.isClosed { return link }
        let opened: Link
        do {
            opened = try await open()
        } catch {
            throw .cannotConnect("\(error)")
        }
        let (link, spare) = publisher.withLock { current -> (Link, Link?) in
            if let current, !current.isClosed { return (current, opened) }
            current = opened
            return (opened, nil)
        }
        spare?.close()
        return link
    }
}
