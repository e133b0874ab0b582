import Auth
import Foundation
import LocstreamProtocol
import StreamCore
import WebSocketTransport

/// The HTTP side of location streams: `POST /v1/locations` and `GET /v1/devices/{id}`.
struct LocationRoutes {
    let environment: StreamSession.Environment

    /// `POST /v1/locations`: a JSON array published all or nothing. With auth on, the
    /// bearer token must allow publishing for every device. The publish rate of the
    /// identity (shared with its WebSocket publishes) applies: past it, 429 with `Retry-After`.
    func publish(_ request: HTTPRequest) async -> HTTPResponse {
        do throws(ProtocolError) {
            let claims = try authorize(request)
            let locations = try LocationBatch.decode(request.body)
            if let claims, let denied = locations.firstIndex(where: { !claims.mayPublish(device: $0.device) }) {
                throw ProtocolError(.forbidden, "[\(denied)].device: your token does not allow publishing for it")
            }
            let identity = PublishIdentity(subject: claims?.subject, peer: request.remoteAddress)
            if let refusal = environment.ingest.admit(locations.count, from: identity) {
                return tooManyRequests(refusal, identity: identity)
            }
            let stored = try await environment.ingest.publish(locations)
            return .json(202, "{\"accepted\":\(stored.count)}")
        } catch {
            return failure(error)
        }
    }

    /// `GET /v1/devices/{id}`: the last known location, or 404. With auth on, the
    /// bearer token must allow subscribing to the device.
    func device(_ id: String, request: HTTPRequest) async -> HTTPResponse {
        guard DeviceID.isValid(id) else {
            return failure(ProtocolError(.badRequest, "device id must be \(DeviceID.rule)"))
        }
        do throws(ProtocolError) {
            if let claims = try authorize(request), !claims.maySubscribe(device: id) {
                throw ProtocolError(.forbidden, "your token does not allow reading this device")
            }
        } catch {
            return failure(error)
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

    /// The claims of the request's bearer token; nil when auth is off.
    private func authorize(_ request: HTTPRequest) throws(ProtocolError) -> Claims? {
        guard case .tokens(let authentication) = environment.access else { return nil }
        guard let token = Credentials.bearerToken(request.authorization) else {
            environment.metrics.authFailures["missing"]?.increment()
            throw ProtocolError(.unauthorized, "send a token: Authorization: Bearer …")
        }
        do {
            return try authentication.verify(token, Date())
        } catch {
            environment.metrics.authFailures[error.reason.rawValue]?.increment()
            throw ProtocolError(.unauthorized, "token refused: \(error.message)")
        }
    }

    /// 429 with `Retry-After`, counted and logged (throttled) like any refusal.
    private func tooManyRequests(_ refusal: PublishRefusal, identity: PublishIdentity) -> HTTPResponse {
        environment.logger.refused(
            "publish refused",
            [
                "identity": identity, "reason": refusal.reason.rawValue, "status": 429,
                "retry_after": refusal.retryAfterSeconds,
            ])
        var response = failure(refusal.error)
        response.headers.append(("retry-after", "\(refusal.retryAfterSeconds)"))
        return response
    }

    private func failure(_ error: ProtocolError) -> HTTPResponse {
        environment.metrics.count(error.code)
        let status =
            switch error.code {
            case .internal: 503
            case .unauthorized: 401
            case .forbidden: 403
            case .rateLimited: 429
            default: 400
            }
        return .json(status, #"{"code":\#(quoted(error.code.rawValue)),"message":\#(quoted(error.message))}"#)
    }

    private func quoted(_ text: String) -> String {
        String(decoding: JSONValue.string(text).encoded(), as: UTF8.self)
    }
}
