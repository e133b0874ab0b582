import Auth
import LocstreamProtocol
import StreamCore
import WebSocketTransport

extension LocationRoutes {
    /// `GET /v1/devices?bbox=…` or `?near=…&radius_m=…`: the last known positions inside,
    /// at most `limit` (`PositionQueryParameters`), `near` nearest first with each
    /// `distance_m`, and `truncated` when more matched. With auth on, the bearer token must
    /// allow areas, and only the devices its `devices` claim allows are found.
    func query(_ request: HTTPRequest) async -> HTTPResponse {
        let parameters: PositionQueryParameters
        do throws(PositionQueryParameters.Refusal) {
            parameters = try PositionQueryParameters(request.query)
        } catch {
            node.metrics.count(.badRequest)
            return .json(
                400,
                #"{"code":"bad_request","parameter":\#(quoted(error.parameter)),"message":\#(quoted(error.message))}"#)
        }
        let claims: Claims?
        do throws(ProtocolError) {
            claims = try node.gate.authorize(authorization: request.authorization)
            if let claims, !claims.mayUseAreas {
                throw ProtocolError(.forbidden, "your token does not allow area queries (areas claim)")
            }
        } catch {
            return failure(error)
        }
        let query = PositionQuery(area: parameters.area, limit: parameters.limit, rights: DeviceRights(claims))
        do {
            let result = try await node.broker.positions(matching: query)
            return HTTPResponse(
                status: 200, contentType: "application/json", headers: [("cache-control", "no-store")],
                body: body(of: result, limit: query.limit))
        } catch {
            return failure(ProtocolError(.internal, "cannot read positions: \(error)"))
        }
    }

    /// `{"devices":[…],"count":n,"limit":l,"truncated":b}`; each device is its stored
    /// location with `online`, and `distance_m` (rounded to centimetres) for `near`.
    private func body(of result: PositionQueryResult, limit: Int) -> [UInt8] {
        var body = Array(#"{"devices":["#.utf8)
        for (index, match) in result.matches.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += onlineMember(match.update)
            if let distance = match.distanceMeters {
                body += Array("\"distance_m\":\((distance * 100).rounded() / 100),".utf8)
            }
            body += match.update.body
        }
        body += Array("],\"count\":\(result.matches.count),\"limit\":\(limit),\"truncated\":\(result.truncated)}".utf8)
        return body
    }
}
