import LocstreamProtocol
import StreamCore
import WebSocketTransport

/// The HTTP side of location streams: `POST /v1/locations` and `GET /v1/devices/{id}`.
struct LocationRoutes {
    let environment: StreamSession.Environment

    /// `POST /v1/locations`: a JSON array published all or nothing.
    func publish(_ request: HTTPRequest) async -> HTTPResponse {
        do throws(ProtocolError) {
            let stored = try await environment.ingest.publish(try LocationBatch.decode(request.body))
            return .json(202, "{\"accepted\":\(stored.count)}")
        } catch {
            return failure(error)
        }
    }

    /// `GET /v1/devices/{id}`: the last known location, or 404.
    func device(_ id: String) async -> HTTPResponse {
        guard DeviceID.isValid(id) else {
            return failure(ProtocolError(.badRequest, "device id must be \(DeviceID.rule)"))
        }
        do {
            guard let last = try await environment.broker.lastKnown([id]).first else {
                return .json(404, #"{"code":"not_found","message":"no position known for this device"}"#)
            }
            return HTTPResponse(
                status: 200, contentType: "application/json", headers: [("cache-control", "no-store")],
                body: [UInt8(ascii: "{")] + last.body)
        } catch {
            return failure(ProtocolError(.internal, "cannot read the position: \(error)"))
        }
    }

    private func failure(_ error: ProtocolError) -> HTTPResponse {
        environment.metrics.count(error.code)
        let status = error.code == .internal ? 503 : 400
        return .json(status, #"{"code":\#(quoted(error.code.rawValue)),"message":\#(quoted(error.message))}"#)
    }

    private func quoted(_ text: String) -> String {
        String(decoding: JSONValue.string(text).encoded(), as: UTF8.self)
    }
}
