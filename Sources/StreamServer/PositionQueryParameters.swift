import LocstreamProtocol
import StreamCore

/// The query string of `GET /v1/devices`: `bbox=minLon,minLat,maxLon,maxLat`, or
/// `near=lon,lat` with `radius_m=R`, and an optional `limit` (default 100, capped at
/// 1000). Each refusal names the parameter that was wrong.
struct PositionQueryParameters {
    /// The answer's size when no `limit` is given.
    static let defaultLimit = 100
    /// The largest answer; a larger `limit` is lowered to it.
    static let maxLimit = 1000
    private static let known: Set = ["bbox", "near", "radius_m", "limit"]

    /// The area asked for: a box, or a disc answered nearest first.
    let area: GeoArea
    /// The limit asked for, capped at `maxLimit`.
    let limit: Int

    /// Reads `query`; a `Refusal` names the parameter and says what is wrong with it.
    init(_ query: [String: String]) throws(Refusal) {
        if let unknown = query.keys.sorted().first(where: { !Self.known.contains($0) }) {
            throw Refusal(
                parameter: unknown, "unknown parameter: give bbox, or near with radius_m, and optionally limit")
        }
        limit = try Self.limit(query["limit"])
        switch (query["bbox"], query["near"]) {
        case (nil, nil):
            throw Refusal(parameter: "bbox", "give bbox=minLon,minLat,maxLon,maxLat or near=lon,lat&radius_m=R")
        case (.some, .some):
            throw Refusal(parameter: "near", "give bbox or near, not both")
        case (let bbox?, nil):
            guard query["radius_m"] == nil else {
                throw Refusal(parameter: "radius_m", "radius_m goes with near, not with bbox")
            }
            let numbers = try Self.numbers(bbox, count: 4, parameter: "bbox", shape: "minLon,minLat,maxLon,maxLat")
            area = try Self.area(
                .bbox(minLon: numbers[0], minLat: numbers[1], maxLon: numbers[2], maxLat: numbers[3]),
                parameter: "bbox")
        case (nil, let near?):
            let centre = try Self.numbers(near, count: 2, parameter: "near", shape: "lon,lat")
            guard let text = query["radius_m"] else { throw Refusal(parameter: "radius_m", "near needs radius_m") }
            guard let radius = Double(text), radius.isFinite, radius > 0 else {
                throw Refusal(parameter: "radius_m", "must be a number of metres greater than 0")
            }
            area = try Self.area(.circle(lon: centre[0], lat: centre[1], radiusMeters: radius), parameter: "near")
        }
    }

    private static func limit(_ text: String?) throws(Refusal) -> Int {
        guard let text else { return defaultLimit }
        guard let limit = Int(text), limit >= 1 else {
            throw Refusal(parameter: "limit", "must be a whole number from 1 (at most \(maxLimit) are returned)")
        }
        return min(limit, maxLimit)
    }

    /// `count` finite numbers separated by commas, as `shape` names them.
    private static func numbers(_ text: String, count: Int, parameter: String, shape: String) throws(Refusal)
        -> [Double]
    {
        let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0) }
        guard numbers.count == count, numbers.allSatisfy({ $0?.isFinite == true }) else {
            throw Refusal(parameter: parameter, "must be \(count) numbers: \(shape)")
        }
        return numbers.compactMap { $0 }
    }

    private static func area(_ area: Area, parameter: String) throws(Refusal) -> GeoArea {
        do {
            return try GeoArea(area)
        } catch {
            throw Refusal(parameter: parameter, error.message)
        }
    }

    /// A parameter that is missing, unknown or wrong.
    struct Refusal: Error {
        /// The parameter's name.
        let parameter: String
        /// What is wrong with it, in words.
        let reason: String

        init(parameter: String, _ reason: String) {
            self.parameter = parameter
            self.reason = reason
        }

        /// `parameter: reason`.
        var message: String { "\(parameter): \(reason)" }
    }
}
