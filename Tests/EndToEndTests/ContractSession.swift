import Foundation
import TestSupport
import Testing

/// A session with a server started with `--auth jwt` (`TestTokens`), `--max-devices 2` and a
/// burst of 20 that goes through every op and every kind of answer, for checking real output
/// against the contract.
enum ContractSession {
    /// The requests of the session, in order: each is followed by a ping whose pong ends
    /// what it answers.
    static func requests() throws -> [String] {
        let token = try TestTokens.make(areas: true)
        let expiring = try TestTokens.make(expiresIn: 20, areas: true)
        let inside = #"{"device":"veh-1","lat":52.52,"lon":13.40,"ts":1764421200123,"speed":8.3,"attrs":{"d":"Ana"}}"#
        let outside = #"{"device":"veh-1","lat":48.13,"lon":11.57,"ts":1764421201123}"#
        return [
            #"{"op":"ping","t":0.25}"#,
            #"{"op":"subscribe","sub":"A","devices":["veh-1"]}"#,
            #"{"op":"auth","token":"not-a-jwt"}"#,
            #"{"op":"auth","token":"\#(token)"}"#,
            #"{"op":"publish","ack":true,"loc":\#(inside)}"#,
            #"{"op":"subscribe","sub":"A","area":{"bbox":[13.08,52.33,13.76,52.68]}}"#,
            #"{"op":"publish","ack":true,"locs":[\#(outside)]}"#,
            #"{"op":"subscribe","sub":"B","devices":["veh-1"],"since":{"veh-1":0}}"#,
            #"{"op":"unsubscribe"}"#,
            #"{"op":"unsubscribe"}"#,
            #"{"op":"nope"}"#,
            #"{"op":"ping",}"#,
            #"{"op":"auth","token":"\#(expiring)"}"#,
        ]
    }

    /// Every frame the server sends in the session, as sent.
    static func frames(server: ServerHarness) async throws -> [String] {
        let requests = try requests()
        return try await withWebSocketClient { client in
            let viewer = try await StreamTestClient(client, url: server.url("/v1/stream"))
            var frames = [viewer.welcomeText]
            for (index, request) in requests.enumerated() {
                let pong = #"{"op":"pong","t":\#(index)}"#
                viewer.send(raw: request)
                viewer.send(raw: #"{"op":"ping","t":\#(index)}"#)
                while let message = await viewer.nextRaw() {
                    frames.append(String(decoding: message.bytes, as: UTF8.self))
                    if frames.last == pong { break }
                }
                #expect(frames.last == pong, "no pong after \(request)")
            }
            return frames
        }
    }

    /// An HTTP answer and the OpenAPI operation and status it answers.
    struct Answer {
        var method: String
        var path: String
        var status: Int
        var body: String
    }

    /// The answers of the HTTP endpoints with a JSON body, each status of each, that a
    /// server can give without failing; the status of each is checked on the way.
    static func httpAnswers(server: ServerHarness) throws -> [Answer] {
        let token = "Authorization: Bearer " + (try TestTokens.make())
        let readOnly = "Authorization: Bearer " + (try TestTokens.make(devices: ["x-*"], publish: nil))
        let areas = "Authorization: Bearer " + (try TestTokens.make(areas: true))
        let location = #"{"device":"veh-2","lat":52.52,"lon":13.40,"ts":1764421200123}"#
        let batch = "[" + Array(repeating: location, count: 21).joined(separator: ",") + "]"
        let newDevices = "[" + location.replacing("veh-2", with: "veh-3") + "]"
        let requests: [(String, String, String, String?, [String], Int)] = [
            ("post", "/v1/locations", "/v1/locations", "[\(location)]", [token], 202),
            ("post", "/v1/locations", "/v1/locations", #"[{"device":"veh-2","lat":200}]"#, [token], 400),
            ("post", "/v1/locations", "/v1/locations", "[\(location)]", [], 401),
            ("post", "/v1/locations", "/v1/locations", "[\(location)]", [readOnly], 403),
            ("post", "/v1/locations", "/v1/locations", newDevices, [token], 507),
            ("post", "/v1/locations", "/v1/locations", batch, [token], 429),
            ("get", "/v1/devices/{id}", "/v1/devices/veh-2", nil, [token], 200),
            ("get", "/v1/devices/{id}", "/v1/devices/veh%20", nil, [token], 400),
            ("get", "/v1/devices/{id}", "/v1/devices/veh-2", nil, [], 401),
            ("get", "/v1/devices/{id}", "/v1/devices/veh-2", nil, [readOnly], 403),
            ("get", "/v1/devices/{id}", "/v1/devices/veh-404", nil, [token], 404),
            ("get", "/v1/devices", "/v1/devices?near=13.4,52.52&radius_m=1000", nil, [areas], 200),
            ("get", "/v1/devices", "/v1/devices?bbox=0,0,1,1&limit=0", nil, [areas], 400),
            ("get", "/v1/devices", "/v1/devices?bbox=0,0,1,1", nil, [], 401),
            ("get", "/v1/devices", "/v1/devices?bbox=0,0,1,1", nil, [token], 403),
            ("get", "/healthz", "/healthz", nil, [], 200),
            ("get", "/readyz", "/readyz", nil, [], 200),
            ("get", "/v1/stream", "/v1/stream", nil, [], 426),
            ("get", "/v1/schema/{name}", "/v1/schema/nope.json", nil, [], 404),
        ]
        return try requests.map { method, operation, path, body, headers, status in
            let response = try RawHTTPResponse.fetch(
                port: server.port, method: method.uppercased(), path: path, body: body, headers: headers)
            #expect(response.status == status, "\(method) \(path): \(response.status) \(response.body)")
            return Answer(method: method, path: operation, status: status, body: response.body)
        }
    }
}
