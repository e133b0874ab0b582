import LocstreamProtocol

/// The one way locations enter the system, from a WebSocket `publish` or from
/// `POST /v1/locations`: validated already by the codec, admitted by the publish rate
/// of its identity, published all or nothing.
public struct Ingest: Sendable {
    let broker: any Broker
    let metrics: StreamMetrics
    /// The publish rate limit, one per identity, shared by both paths.
    public let rateLimiter: PublishRateLimiter

    /// Publishing through `broker` at most as fast as `rateLimiter` allows, counting in `metrics`.
    public init(broker: any Broker, metrics: StreamMetrics, rateLimiter: PublishRateLimiter) {
        self.broker = broker
        self.metrics = metrics
        self.rateLimiter = rateLimiter
    }

    /// Takes `count` locations from `identity`'s publish budget; nil when allowed, else
    /// the refusal (counted in `publish_refused_total`).
    public func admit(_ count: Int, from identity: PublishIdentity) -> PublishRefusal? {
        guard let refusal = rateLimiter.take(count, for: identity) else { return nil }
        metrics.publishRefused[refusal.reason.rawValue]?.increment()
        return refusal
    }

    /// Publishes `locations`; returns them as stored, with their seqs, once they are
    /// stored for good when `confirmed` (the publisher will be told), else once delivered.
    /// A publish of new devices past `--max-devices` is refused whole (`PublishFailure.refused`).
    public func publish(_ locations: [Location], confirmed: Bool) async throws(PublishFailure) -> [EncodedLocation] {
        do {
            let stored = try await broker.publish(locations, confirmed: confirmed)
            metrics.published.increment(by: stored.count)
            return stored
        } catch {
            if error.deviceLimit {
                metrics.publishRefused[PublishRefusal.Reason.maxDevices.rawValue]?.increment()
                throw .refused(PublishRefusal(reason: .maxDevices, retryAfterSeconds: nil, message: error.description))
            }
            throw .failed(Self.failure(error))
        }
    }

    private static func failure(_ error: BrokerError) -> ProtocolError {
        guard error.outcomeUnknown else {
            return ProtocolError(.internal, "publish failed: \(error)", failedOp: "publish")
        }
        return ProtocolError(
            .internal, "publish outcome unknown: \(error); it may have been stored, check with GET /v1/devices/{id}",
            failedOp: "publish")
    }
}
