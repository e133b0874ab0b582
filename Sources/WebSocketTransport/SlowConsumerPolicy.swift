/// What a connection's outbox does when its peer reads slower than frames arrive.
public struct SlowConsumerPolicy: Sendable, Equatable {
    /// What happens to data frames once `maxQueuedBytes` is reached.
    public enum Action: String, Sendable, CaseIterable {
        /// A newer data frame replaces the queued older one with the same key; when the
        /// distinct keys alone fill the limit, the oldest queued data frames are dropped.
        /// The connection stays open.
        case conflate
        /// The connection is closed with 4008.
        case disconnect
    }

    /// The action taken past the limit.
    public var action: Action
    /// Bytes of payload a connection may have queued before the action applies; under
    /// `conflate`, data frames never hold more. Control frames (replies, errors) may use
    /// as much again; past twice this the peer has stopped reading even those, and the
    /// connection closes with 4008 whatever the action, so memory per connection stays bounded.
    public var maxQueuedBytes: Int

    /// A policy taking `action` past `maxQueuedBytes`.
    public init(action: Action = .conflate, maxQueuedBytes: Int = 1 << 20) {
        self.action = action
        self.maxQueuedBytes = maxQueuedBytes
    }

    /// The close sent to a slow consumer.
    public static let closeRequest = CloseRequest(code: 4008, reason: "slow consumer")
}
