import Auth
import Foundation
import LocstreamProtocol
import StreamCore
import WebSocketTransport

/// The HTTP side of location streams: `POST /v1/locations`, `GET /v1/devices/{id}` and
/// the geo queries of `GET /v1/devices` (`LocationRoutes+Query.swift`).
struct LocationRoutes {
    let node: Node

    /// `POST /v1/locations`: a JSON array published all or nothing. With auth on, the
    /// bearer token must allow publishing for every device. The publish rate of the
    /// identity (shared with its WebSocket publishes) applies: past it, 429 with
    /// `Retry-After`. New devices past `--max-devices` get 507.
    func publish(_ request: HTTPRequest) async -> HTTPResponse {
        let claims: Claims?
        let locations: [Location]
        do throws(ProtocolError) {
            claims = try node.gate.authorize(authorization: request.authorization)
            locations = try LocationBatch.decode(request.body)
            if let claims, let denied = locations.firstIndex(where: { !claims.mayPublish(device: $0.device) }) {
                throw ProtocolError(.forbidden, "[\(denied)].device: your token does not allow publishing for it")
            }
        } catch {
            return failure(error)
        }
        let identity = PublishIdentity(subject: claims?.subject, peer: request.remoteAddress)
        if let refusal = node.ingest.admit(locations.count, from: identity) {
            return refused(refusal, identity: identity)
        }
        do throws(PublishFailure) {
            let stored = try await node.ingest.publish(locations, confirmed: true)
            return .json(202, "{\"accepted\":\(stored.count)}")
        } catch {
            switch error {
            case .refused(let refusal): return refused(refusal, identity: identity)
            case .failed(let error): return failure(error)
            }
        }
    }

    /// `GET /v1/devices/{id}`: the last known location with `online`, or 404. With auth on, the
    /// bearer token must allow subscribing to the device.
    func device(_ id: String, request: HTTPRequest) async -> HTTPResponse {
        guard DeviceID.isValid(id) else {
            return failure(ProtocolError(.badRequest, "device id must be \(DeviceID.rule)"))
        }
        do throws(ProtocolError) {
            if let claims = try node.gate.authorize(authorization: request.authorization),
                !claims.maySubscribe(device: id)
            {
                throw ProtocolError(.forbidden, "your token does not allow reading this device")
            }
        } catch {
            return failure(error)
        }
        do {
            guard let last = try await node.broker.lastKnown([id]).first else {
                return .json(404, #"{"code":"not_found","message":"no position known for this device"}"#)
            }
            return HTTPResponse(
                status: 200, contentType: "application/json", headers: [("cache-control", "no-store")],
                body: onlineMember(last) + last.body)
        } catch {
            return failure(ProtocolError(.internal, "cannot read the position: \(error)"))
        }
    }

    /// `{"online":true,` or `{"online":false,`: the start of a device's answer (v1.1).
    func onlineMember(_ last: EncodedLocation) -> [UInt8] {
        Array((node.presence.isOnline(last) ? #"{"online":true,"# : #"{"online":false,"#).utf8)
    }

    /// 429 with `Retry-After` past the rate, 507 past the device limit; the body names the
    /// reason. Counted and logged (throttled) like any refusal.
    private func refused(_ refusal: PublishRefusal, identity: PublishIdentity) -> HTTPResponse {
        let status = refusal.reason == .maxDevices ? 507 : 429
        node.logger.refused(
            "publish refused", ["identity": identity, "reason": refusal.reason.rawValue, "status": status])
        node.metrics.count(refusal.error.code)
        var response = HTTPResponse.json(
            status,
            #"{"code":\#(quoted(refusal.error.code.rawValue)),"reason":\#(quoted(refusal.reason.rawValue)),"message":\#(quoted(refusal.message))}"#
        )
        if let seconds = refusal.retryAfterSeconds { response.headers.append(("retry-after", "\(seconds)")) }
        return response
    }

    func failure(_ error: ProtocolError) -> HTTPResponse {
        node.metrics.count(error.code)
        let status =
            switch error.code {
            case .internal: 503
            case .unauthorized: 401
            case .forbidden: 403
            default: 400
            }
        return .json(status, #"{"code":\#(quoted(error.code.rawValue)),"message":\#(quoted(error.message))}"#)
    }

    func quoted(_ text: String) -> String {
        String(decoding: JSONValue.string(text).encoded(), as: UTF8.self)
    }
}
