import Foundation
import LocstreamProtocol
import TestSupport
import Testing
import WebSocketTransport

extension EndToEnd {
    /// The scope's promise under load: after `subscribed{sub:B}`, no frame of any other
    /// sub ever arrives; and resources return to zero when clients leave.
    @Suite("subscription churn and cleanup")
    struct SubscriptionChurnTests {
        @Test("subscribers switching quickly during a publish flood never see a stale frame")
        func churnHasNoStaleFrames() async throws {
            let server = try await ServerHarness(ServerHarness.floodLimits)
            let url = server.url("/v1/stream")
            try await Self.churn(publishingTo: url, viewingOn: url)
        }

        /// 20 viewers on `url` each switch `switches` times while a publisher on
        /// `publishURL` floods 20 devices; after each `subscribed`, every frame must be of
        /// the new sub.
        static func churn(publishingTo publishURL: String, viewingOn url: String, switches: Int = 60) async throws {
            let client = try await WebSocketClient.start()
            let devices = (0..<20).map { "veh-\($0)" }
            let publisher = try await StreamTestClient(client, url: publishURL)
            let flood = Task {
                var round = 0
                // Until the viewers are done (then cancelled), at most 5 minutes.
                let deadline = ContinuousClock.now + .seconds(300)
                while !Task.isCancelled, ContinuousClock.now < deadline {
                    publisher.send(.publish(devices.map { testLocation($0, lat: Double(round % 90)) }, ack: false))
                    round += 1
                    try? await Task.sleep(for: .milliseconds(10))
                }
            }
            let results = try await withThrowingTaskGroup(of: (stale: Int, delivered: Int).self) { group in
                for viewerIndex in 0..<20 {
                    group.addTask {
                        let viewer = try await StreamTestClient(client, url: url)
                        var stale = 0
                        var delivered = 0
                        for switchIndex in 0..<switches {
                            let sub = "v\(viewerIndex)-s\(switchIndex)"
                            let watched = Array(devices.shuffled().prefix(5))
                            viewer.send(subscribe(sub, watched, snapshot: switchIndex % 2 == 0))
                            var acked = false
                            var afterAck = 0
                            while afterAck < 8, let frame = await viewer.next(within: .seconds(5)) {
                                switch frame {
                                case .subscribed(let ackSub, _, _): acked = acked || ackSub == sub
                                case .loc(let frameSub, let location) where acked:
                                    afterAck += 1
                                    if frameSub != sub || !watched.contains(location.device) {
                                        stale += 1
                                    } else {
                                        delivered += 1
                                    }
                                default: break
                                }
                            }
                        }
                        viewer.connection.close(code: 1000)
                        return (stale, delivered)
                    }
                }
                return try await group.reduce(into: [(stale: Int, delivered: Int)]()) { $0.append($1) }
            }
            flood.cancel()
            #expect(results.map(\.stale).reduce(0, +) == 0, "stale frames after the ack")
            #expect(results.allSatisfy { $0.delivered > 0 }, "every viewer's new subscriptions deliver")
            await client.shutdown()
        }

        @Test("after every client closes, connections, subscriptions and hub_entries return to 0")
        func gaugesReturnToZero() async throws {
            try await ServerHarness.withClient { server, client in
                var viewers: [StreamTestClient] = []
                for index in 0..<30 {
                    let viewer = try await StreamTestClient(client, url: server.url("/v1/stream"))
                    viewer.send(subscribe("s\(index)", ["a", "b", "c-\(index)"]))
                    _ = await viewer.next()
                    viewers.append(viewer)
                }
                let busy = try server.metrics()
                #expect(busy["locstream_connections"] == 30 && busy["locstream_subscriptions"] == 30)
                #expect(busy["locstream_hub_entries"] == 90)
                for viewer in viewers { viewer.connection.close(code: 1000) }
                // Each gauge falls on its own: connections when the transport closes the
                // socket, subscriptions and hub entries when the session closes after it.
                var idle = try server.metrics()
                let gauges = ["locstream_connections", "locstream_subscriptions", "locstream_hub_entries"]
                for _ in 0..<200 where gauges.contains(where: { idle[$0] != 0 }) {
                    try await Task.sleep(for: .milliseconds(25))
                    idle = try server.metrics()
                }
                #expect(idle["locstream_connections"] == 0)
                #expect(idle["locstream_subscriptions"] == 0)
                #expect(idle["locstream_hub_entries"] == 0)
            }
        }

    }
}
