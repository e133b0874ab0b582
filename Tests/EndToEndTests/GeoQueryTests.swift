import Foundation
import LocstreamProtocol
import TestSupport
import Testing

extension EndToEnd {
    /// `GET /v1/devices?bbox=…` and `?near=…&radius_m=…` on a real server, embedded and on
    /// Redis (GEOSEARCH), against a brute force over what the test published: devices
    /// around a city, the antimeridian and both poles; boxes that wrap, discs over a pole,
    /// the whole world; limits and token rights.
    @Suite("geo queries over HTTP")
    struct GeoQueryTests {
        @Test("embedded: answers match a brute force")
        func embedded() async throws {
            try await matchesBruteForce(try await ServerHarness(TestTokens.serverOptions(ServerHarness.floodLimits)))
        }

        @Test("Redis: answers match a brute force")
        func redis() async throws {
            let redis = try await RedisHarness()
            let server = try await ServerHarness(
                TestTokens.serverOptions(redis.serverArguments + ServerHarness.floodLimits))
            try await matchesBruteForce(server)
        }

        @Test("bad parameters get 400 naming the parameter; the server and a bystander carry on")
        func badParameters() async throws {
            let server = try await ServerHarness()
            let bystander = try await Bystander(server)
            let cases: [(String, String)] = [
                ("", "bbox"), ("bbox=1,2,3", "bbox"), ("bbox=a,b,c,d", "bbox"), ("bbox=0,0,1,nan", "bbox"),
                ("bbox=0,0,1,1e999", "bbox"), ("bbox=0,10,1,5", "bbox"), ("bbox=5,0,5,1", "bbox"),
                ("bbox=0,0,200,1", "bbox"), ("near=1", "near"), ("near=0,95&radius_m=10", "near"),
                ("near=1,2", "radius_m"), ("near=1,2&radius_m=0", "radius_m"), ("near=1,2&radius_m=x", "radius_m"),
                ("bbox=0,0,1,1&radius_m=5", "radius_m"), ("bbox=0,0,1,1&near=1,1", "near"),
                ("bbox=0,0,1,1&limit=0", "limit"), ("bbox=0,0,1,1&limit=-3", "limit"),
                ("bbox=0,0,1,1&limit=2.5", "limit"),
                ("bbox=0,0,1,1&radius=5", "radius"),
            ]
            for (query, parameter) in cases {
                let path = "/v1/devices" + (query.isEmpty ? "" : "?" + query)
                let response = try RawHTTPResponse.fetch(port: server.port, path: path)
                #expect(response.status == 400, "\(query)")
                let body = try JSONValue(parsing: Array(response.body.utf8))
                #expect(body.member("parameter") == .string(parameter), "\(query): \(response.body)")
                #expect(body.member("code") == .string("bad_request"), "\(query)")
            }
            let capped = try RawHTTPResponse.fetch(port: server.port, path: "/v1/devices?bbox=0,0,1,1&limit=99999")
            #expect(capped.status == 200 && capped.body.contains(#""limit":1000"#), "\(capped.body)")
            let head = try RawHTTPResponse.fetch(port: server.port, method: "POST", path: "/v1/devices", body: "{}")
            #expect(head.status == 405)
            let metrics = try RawHTTPResponse.fetch(port: server.port, path: "/metrics").body
            #expect(metrics.contains(#"locstream_errors_total{code="bad_request"} \#(cases.count)"#))
            await bystander.expectUnharmed()
        }

        @Test("a token without areas gets 403, without a token 401")
        func rights() async throws {
            let server = try await ServerHarness(TestTokens.serverOptions())
            let path = "/v1/devices?near=0,0&radius_m=1000"
            #expect(try RawHTTPResponse.fetch(port: server.port, path: path).status == 401)
            let noAreas = "Authorization: Bearer " + (try TestTokens.make(areas: false))
            #expect(try RawHTTPResponse.fetch(port: server.port, path: path, headers: [noAreas]).status == 403)
            let areas = "Authorization: Bearer " + (try TestTokens.make(areas: true))
            #expect(try RawHTTPResponse.fetch(port: server.port, path: path, headers: [areas]).status == 200)
        }

        /// Publishes random devices to `server`, then checks random queries, with a token
        /// that sees every device and with one that sees some.
        private func matchesBruteForce(_ server: ServerHarness) async throws {
            var random = SplitMix64(seed: 19)
            let publisher = "Authorization: Bearer " + (try TestTokens.make())
            var positions: [String: (lat: Double, lon: Double)] = [:]
            for batch in 0..<3 {
                var locations: [String] = []
                for index in 0..<1000 {
                    let (lat, lon) = GeoSample.position(&random)
                    let device = "d\(batch)-\(index % 2 == 0 ? "even" : "odd")-\(index)"
                    positions[device] = (lat, lon)
                    locations.append(#"{"device":"\#(device)","lat":\#(lat),"lon":\#(lon),"ts":1}"#)
                }
                let response = try RawHTTPResponse.fetch(
                    port: server.port, method: "POST", path: "/v1/locations",
                    body: "[" + locations.joined(separator: ",") + "]", headers: [publisher])
                #expect(response.status == 202, "\(response.body)")
            }
            let viewers = [
                ("*", "Authorization: Bearer " + (try TestTokens.make(areas: true))),
                ("*-even-*", "Authorization: Bearer " + (try TestTokens.make(devices: ["*-even-*"], areas: true))),
            ]
            var truncated = 0
            for round in 0..<120 {
                let query = GeoSample.query(&random, round: round)
                let (pattern, token) = viewers[round % 2]
                let limit = [1, 7, 50, 1000][round % 4]
                let response = try RawHTTPResponse.fetch(
                    port: server.port, path: "/v1/devices?\(query.text)&limit=\(limit)", headers: [token])
                try #require(response.status == 200, "\(query.text): \(response.body)")
                let answer = try GeoAnswer(response.body)
                let expected = positions.filter {
                    query.contains($0.value) && (pattern == "*" || $0.key.contains("-even-"))
                }
                #expect(answer.truncated == (expected.count > limit), "\(query.text)")
                #expect(answer.devices.count == min(limit, expected.count), "\(query.text)")
                #expect(Set(answer.devices.map(\.device)).isSubset(of: Set(expected.keys)), "\(query.text)")
                for device in answer.devices {
                    let known = positions[device.device]
                    #expect(known?.lat == device.lat && known?.lon == device.lon, "\(device.device)")
                }
                if let near = query.near {
                    let distance = { (p: (lat: Double, lon: Double)) in
                        GreatCircle.meters(fromLat: near.lat, lon: near.lon, toLat: p.lat, lon: p.lon)
                    }
                    let nearest = expected.sorted { (distance($0.value), $0.key) < (distance($1.value), $1.key) }
                    #expect(answer.devices.map(\.device) == nearest.prefix(limit).map(\.key), "\(query.text)")
                    for (device, expected) in zip(answer.devices, nearest) {
                        #expect(abs((device.distance ?? -1) - distance(expected.value)) <= 0.01, "\(query.text)")
                    }
                }
                if answer.truncated { truncated += 1 }
            }
            #expect(truncated > 20)
        }
    }
}

/// Random positions and queries for the geo query test, clustered where geo queries are
/// hard: a city, the antimeridian (Fiji) and both poles.
private enum GeoSample {
    static let clusters: [(lat: Double, lon: Double, spread: Double)] = [
        (52.5, 13.4, 0.3), (-17, 179.95, 0.3), (89.7, 0, 180), (-89.6, 100, 180),
    ]

    static func position(_ random: inout SplitMix64) -> (lat: Double, lon: Double) {
        let cluster = clusters[Int.random(in: 0..<clusters.count, using: &random)]
        let lat = min(max(cluster.lat + Double.random(in: -0.3...0.3, using: &random), -90), 90)
        return (lat, wrap(cluster.lon + Double.random(in: -cluster.spread...cluster.spread, using: &random)))
    }

    static func query(_ random: inout SplitMix64, round: Int) -> GeoQuery {
        if round % 12 == 0 { return GeoQuery(box: (-180, -90, 180, 90)) }
        let centre = position(&random)
        if round % 2 == 0 {
            return GeoQuery(
                near: centre, radius: Double.random(in: 1_000...(round % 6 == 0 ? 3e6 : 60_000), using: &random))
        }
        let (height, width) = (
            Double.random(in: 0.05...0.5, using: &random), Double.random(in: 0.05...0.8, using: &random)
        )
        return GeoQuery(
            box: (
                wrap(centre.lon - width), max(centre.lat - height, -90), wrap(centre.lon + width),
                min(centre.lat + height, 90)
            ))
    }

    static func wrap(_ lon: Double) -> Double { lon > 180 ? lon - 360 : (lon < -180 ? lon + 360 : lon) }
}

/// A query of the test, with its own brute-force membership test.
private struct GeoQuery {
    var text: String
    var near: (lat: Double, lon: Double)?
    var contains: ((lat: Double, lon: Double)) -> Bool

    init(box: (minLon: Double, minLat: Double, maxLon: Double, maxLat: Double)) {
        text = "bbox=\(box.minLon),\(box.minLat),\(box.maxLon),\(box.maxLat)"
        contains = { point in
            guard point.lat >= box.minLat, point.lat <= box.maxLat else { return false }
            let inside = { (lon: Double) in
                box.minLon <= box.maxLon
                    ? (lon >= box.minLon && lon <= box.maxLon) : (lon >= box.minLon || lon <= box.maxLon)
            }
            return inside(point.lon) || (abs(point.lon) == 180 && inside(-point.lon))
        }
    }

    init(near centre: (lat: Double, lon: Double), radius: Double) {
        text = "near=\(centre.lon),\(centre.lat)&radius_m=\(radius)"
        near = centre
        contains = { GreatCircle.meters(fromLat: centre.lat, lon: centre.lon, toLat: $0.lat, lon: $0.lon) <= radius }
    }
}

/// The body of a `GET /v1/devices` answer.
private struct GeoAnswer {
    struct Device {
        var device: String
        var lat: Double
        var lon: Double
        var distance: Double?
    }

    var devices: [Device] = []
    var truncated = false

    init(_ body: String) throws {
        let json = try JSONValue(parsing: Array(body.utf8))
        truncated = json.member("truncated") == .bool(true)
        guard case .array(let items)? = json.member("devices") else { throw GeoAnswerError(body: body) }
        for item in items {
            guard case .string(let device)? = item.member("device"), let lat = item.member("lat")?.doubleValue,
                let lon = item.member("lon")?.doubleValue
            else { throw GeoAnswerError(body: body) }
            devices.append(Device(device: device, lat: lat, lon: lon, distance: item.member("distance_m")?.doubleValue))
        }
    }

    struct GeoAnswerError: Error { var body: String }
}

extension JSONValue {
    fileprivate func member(_ name: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[name]
    }
}
