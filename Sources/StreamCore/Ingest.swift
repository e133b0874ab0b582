import LocstreamProtocol

/// The one way locations enter the system, from a WebSocket `publish` or from
/// `POST /v1/locations`: validated already by the codec, published all or nothing.
public struct Ingest: Sendable {
    let broker: any Broker
    let metrics: StreamMetrics

    /// Publishing through `broker`, counting in `metrics`.
    public init(broker: any Broker, metrics: StreamMetrics) {
        self.broker = broker
        self.metrics = metrics
    }

    /// Publishes `locations`; returns them as stored, with their seqs.
    public func publish(_ locations: [Location]) async throws(ProtocolError) -> [EncodedLocation] {
        do {
            let stored = try await broker.publish(locations)
            metrics.published.increment(by: stored.count)
            return stored
        } catch {
            guard error.outcomeUnknown else {
                throw ProtocolError(.internal, "publish failed: \(error)", failedOp: "publish")
            }
            throw ProtocolError(
                .internal,
                "publish outcome unknown: \(error); it may have been stored, check with GET /v1/devices/{id}",
                failedOp: "publish")
        }
    }
}
