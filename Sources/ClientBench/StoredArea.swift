import LocstreamClient
import LocstreamClientLWS
import WebSocketTransport

/// An area of one degree square (52–53° N, 13–14° E) filled with stored devices through the
/// library's `publish`, on a grid inside it: what `client-bench snapshots` subscribes to.
struct StoredArea: Sendable {
    static let area = Area.bbox(minLon: 13, minLat: 52, maxLon: 14, maxLat: 53)

    let url: String
    let devices: Int

    /// Publishes one location for each of `snap-0`…`snap-(devices-1)`, acknowledged.
    func fill() async throws {
        let webSockets = try await WebSocketClient.start(caFile: nil)
        let client = LocstreamClient(transport: LWSTransport(client: webSockets, url: url))
        let side = 1000
        let locations = (0..<devices).map { index in
            Location(
                device: "snap-\(index)", lat: 52.0005 + Double(index % side) / Double(side),
                lon: 13.0005 + Double(index / side % side) / Double(side), ts: 1_764_421_200_000 + Int64(index))
        }
        let seqs = try await client.publish(locations)
        client.closeIdleConnections()
        await webSockets.shutdown()
        guard seqs.count == devices else { throw FigureFailure("\(seqs.count) of \(devices) devices were stored") }
    }
}
