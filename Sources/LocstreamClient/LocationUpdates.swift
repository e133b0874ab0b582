/// The updates of one subscription, as an `AsyncSequence`.
///
/// Iterating starts the subscription; ending the iteration (a `break`, a thrown error, the
/// task cancelled, as when a `.task(id:)` restarts) ends it: the connection goes to the next
/// sequence that starts, as a switch, or sends `unsubscribe` after the client's
/// `switchWindow`. Each iteration is a subscription of its own.
public struct LocationUpdates: AsyncSequence, Sendable {
    /// What happened.
    public typealias Element = LocationUpdate
    /// Why the sequence ended early.
    public typealias Failure = LocstreamError

    let client: LocstreamClient
    let target: SubscriptionTarget
    let options: SubscriptionOptions

    /// Starts the subscription.
    public func makeAsyncIterator() -> Iterator {
        let (stream, continuation) = AsyncStream.makeStream(of: Result<[Delivery], LocstreamError>.self)
        let feed = Feed(
            request: options.request(sub: client.nextSubID(), target: target), client: client,
            continuation: continuation)
        continuation.onTermination = { _ in feed.end() }
        feed.start()
        return Iterator(base: stream.makeAsyncIterator(), lease: Lease(feed: feed))
    }

    /// Iterates the updates; the subscription ends when the iterator goes away.
    public struct Iterator: AsyncIteratorProtocol {
        private var base: AsyncStream<Result<[Delivery], LocstreamError>>.Iterator
        private let lease: Lease
        /// The batch being handed out, and the index of its next update.
        private var batch: [Delivery] = []
        private var nextIndex = 0

        init(base: AsyncStream<Result<[Delivery], LocstreamError>>.Iterator, lease: Lease) {
            self.base = base
            self.lease = lease
        }

        /// The next update; nil once the task is cancelled; throws what ended the subscription.
        public mutating func next() async throws(LocstreamError) -> LocationUpdate? {
            try await next(isolation: nil)
        }

        /// The next update, on the caller's actor.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(LocstreamError)
            -> LocationUpdate?
        {
            try await nextDelivery(isolation: actor)?.update
        }

        /// The subscription id this iteration uses on the server.
        package var sub: String { lease.feed.sub }

        /// The next update with its frame and its device's previous seq.
        ///
        /// The feed yields batches; the rest of a batch waits here, and is dropped when the
        /// task is cancelled (as the stream's buffer is).
        package mutating func nextDelivery(isolation actor: isolated (any Actor)? = #isolation)
            async throws(LocstreamError) -> Delivery?
        {
            if nextIndex < batch.count, !Task.isCancelled {
                defer { nextIndex += 1 }
                return batch[nextIndex]
            }
            batch = []
            nextIndex = 0
            guard let next = try await base.next(isolation: actor)?.get(), !next.isEmpty else { return nil }
            lease.feed.taken(next.count)
            batch = next
            nextIndex = 1
            return next[0]
        }
    }

    /// Ends the feed when the last copy of its iterator goes away (a `break` drops it).
    final class Lease: Sendable {
        let feed: Feed

        init(feed: Feed) { self.feed = feed }

        deinit { feed.end() }
    }
}
