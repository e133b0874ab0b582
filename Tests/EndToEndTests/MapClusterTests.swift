import Foundation
import LocstreamProtocol
import TestSupport
import Testing

extension EndToEnd {
    /// The map page's clusters, in a real headless Chromium against a real server: a view
    /// holding more than 2,000 devices, the whole world, and a view across the antimeridian
    /// show clusters whose counts add up to the devices in view; clicking a cluster zooms in,
    /// and zooming in to a few devices shows their markers.
    @Suite("map page: clusters", .enabled(if: WebDriver.isAvailable, "needs chromium-driver"))
    struct MapClusterTests {
        /// A place and how many devices sit there, each a little apart.
        struct Place {
            var name: String
            var lat: Double
            var lon: Double
            var devices: Int
        }

        /// 10,000 devices over Berlin (the page's home view), a few in cities around the world,
        /// and some on both sides of the antimeridian.
        static let places = [
            Place(name: "sydney", lat: -33.87, lon: 151.21, devices: 5),
            Place(name: "newyork", lat: 40.71, lon: -74.0, devices: 7),
            Place(name: "tokyo", lat: 35.68, lon: 139.69, devices: 9),
            Place(name: "capetown", lat: -33.92, lon: 18.42, devices: 4),
            Place(name: "saopaulo", lat: -23.55, lon: -46.63, devices: 6),
            Place(name: "fiji", lat: -17.8, lon: 178.4, devices: 8),
            Place(name: "samoa", lat: -13.8, lon: -172.1, devices: 3),
            Place(name: "tonga", lat: -21.2, lon: -175.2, devices: 2),
        ]
        static let berlin = 10_000

        /// Every seeded device: Berlin's spread over the home view, the others within 0.01°.
        static func locations(ts: Int64) -> [Location] {
            let city = (0..<berlin).map { index in
                let lat = 52.40 + 0.2 * (Double(index) * 0.618_034).truncatingRemainder(dividingBy: 1)
                let lon = 13.2 + 0.4 * (Double(index) * 0.754_877_7).truncatingRemainder(dividingBy: 1)
                return Location(device: "berlin-\(index)", lat: lat, lon: lon, ts: ts)
            }
            return city
                + places.flatMap { place in
                    (0..<place.devices).map { index in
                        Location(
                            device: "\(place.name)-\(index)", lat: place.lat + Double(index) * 0.001,
                            lon: place.lon + Double(index) * 0.001, ts: ts)
                    }
                }
        }

        /// What the page shows: its view, and the clusters or markers in it.
        struct View: Decodable {
            var sub: String?
            var state: String
            var cellDeg: Double?
            var zoom: Double
            var bbox: [Double]
            var clustered: Int
            var cells: Int
            var markers: Int
            var stale: Int
            var errors: [String]

            /// How many of `locations` are inside the view's bbox (across ±180 when west > east).
            func holding(_ locations: [Location]) -> Int {
                let (west, south, east, north) = (bbox[0], bbox[1], bbox[2], bbox[3])
                return locations.filter { location in
                    let inLon =
                        west <= east
                        ? location.lon >= west && location.lon <= east : location.lon >= west || location.lon <= east
                    return inLon && location.lat >= south && location.lat <= north
                }.count
            }
        }

        static let probe = """
            const l = window.locstream;
            if (!l) return null;
            const cells = l.clusters();
            return {sub: l.sub, state: l.state, cellDeg: l.cellDeg, zoom: l.zoom, bbox: l.bbox(),
                    clustered: cells.reduce((sum, cell) => sum + cell.count, 0), cells: cells.length,
                    markers: l.markers().length, stale: l.stale, errors: l.errors};
            """

        /// The page's view once `condition` holds for it, within `timeout`.
        static func view(
            _ driver: WebDriver, within timeout: Duration = .seconds(20), until condition: @escaping (View) -> Bool
        ) async throws -> View? {
            let (value, met) = try await driver.wait(for: probe, within: timeout) { decode($0).map(condition) ?? false }
            #expect(met, "the page did not get there: \(value)")
            return decode(value)
        }

        static func decode(_ value: Any) -> View? {
            guard !(value is NSNull), let data = try? JSONSerialization.data(withJSONObject: value) else { return nil }
            return try? JSONDecoder().decode(View.self, from: data)
        }

        @Test("a crowded view, the world and the antimeridian show clusters that add up; zooming in shows devices")
        func clusters() async throws {
            let server = try await ServerHarness(AreaPanTests.cityLimits)
            let seeded = Self.locations(ts: Int64(Date().timeIntervalSince1970 * 1000))
            try await withWebSocketClient { client in
                let publisher = try await StreamTestClient(client, url: server.url("/v1/stream"))
                for start in stride(from: 0, to: seeded.count, by: 500) {
                    let batch = Array(seeded[start..<min(start + 500, seeded.count)])
                    publisher.send(.publish(batch, ack: true))
                    guard case .published(batch.count)? = await publisher.next() else {
                        Issue.record("batch at \(start) was not published")
                        return
                    }
                }
            }
            let driver = try await WebDriver()
            defer { driver.quit() }
            try driver.navigate(to: server.url("/", scheme: "http"))

            // Home: Berlin's 10,000 devices are over the threshold, so its first device view turns to clusters.
            let home = try await Self.view(driver) {
                $0.state == "connected" && $0.cellDeg != nil && $0.clustered > 0 && $0.markers == 0
            }
            #expect(home?.holding(seeded) == Self.berlin, "\(String(describing: home))")
            #expect(home?.clustered == Self.berlin, "\(String(describing: home))")

            // The whole world: every device, in a few cells.
            _ = try driver.execute("window.locstream.setView(20, 10, 1); return null;")
            let world = try await Self.view(driver) {
                $0.state == "connected" && $0.zoom == 1 && $0.clustered == seeded.count
            }
            #expect(world.map { [$0.bbox[0], $0.bbox[2]] } == [-180, 180], "\(String(describing: world))")
            #expect((world?.cells ?? 0) > 5, "\(String(describing: world))")
            try await Task.sleep(for: .milliseconds(1200))  // the side panel updates once a second
            try Screenshots.save(driver, as: "map-clusters.png")

            // Across the antimeridian: Fiji, Samoa and Tonga on both sides of it, in one view.
            _ = try driver.execute("window.locstream.setView(-17, 180, 5); return null;")
            let pacific = try await Self.view(driver) {
                $0.state == "connected" && $0.zoom == 5 && $0.cellDeg != nil && $0.clustered == $0.holding(seeded)
            }
            let across = try #require(pacific)
            #expect(across.bbox[0] > across.bbox[2], "the bbox does not cross ±180: \(across.bbox)")
            #expect(across.clustered == 13, "\(across)")

            // Click the Fiji cluster: the page zooms in to its cell.
            let fiji =
                try driver.execute(
                    """
                    const l = window.locstream;
                    const cell = l.clusters().find((c) => c.lon > 178 && c.lon < 179);
                    return cell ? l.clusterPointOf(cell.cell) : null;
                    """) as? [Int]
            let point = try #require(fiji, "no Fiji cluster drawn")
            try driver.click(x: point[0], y: point[1])
            let zoomed = try await Self.view(driver) { $0.zoom > 5 && $0.state == "connected" && $0.sub != across.sub }
            #expect((zoomed?.zoom ?? 0) > 5 && (zoomed?.holding(seeded) ?? 0) >= 8, "\(String(describing: zoomed))")

            // Zoomed in on Sydney: its five devices as markers, no clusters.
            _ = try driver.execute("window.locstream.setView(-33.868, 151.212, 13); return null;")
            let sydney = try await Self.view(driver) {
                $0.state == "connected" && $0.sub != zoomed?.sub && $0.cellDeg == nil && $0.markers > 0
            }
            #expect(sydney?.markers == 5 && sydney?.cells == 0, "\(String(describing: sydney))")
            #expect(sydney?.stale == 0 && sydney?.errors == [], "\(String(describing: sydney))")
            _ = await server.stop()
        }
    }
}
