import LocstreamProtocol

/// Reads subscription targets written as text, the same way on the command line
/// (`--devices`, `--bbox`, `--near`) and on standard input (`sub`, `bbox`, `near`).
///
/// Items are separated by commas and/or blanks; empty items are skipped. The rules are
/// PROTOCOL.md's, so a target that passes here is one the server accepts.
enum TargetSyntax {
    /// Why a target was refused, in words that follow its name (e.g. "--bbox " + reason).
    struct Failure: Error, Equatable {
        /// The reason, such as "must be 4 numbers: minLon,minLat,maxLon,maxLat".
        var reason: String
    }

    /// `veh-1,veh-2`: 1 to 1000 device ids, duplicates dropped, order kept.
    static func devices(_ text: String) throws(Failure) -> [String] {
        let items = split(text)
        let limit = ProtocolLimits.maxDevicesPerSubscribe
        guard !items.isEmpty else {
            throw Failure(reason: "needs a comma-separated list of device ids, e.g. veh-1,veh-2")
        }
        var seen: Set<String> = []
        var ids: [String] = []
        for item in items {
            guard DeviceID.isValid(item) else {
                throw Failure(reason: "has an invalid device id '\(item)' (ids are \(DeviceID.rule))")
            }
            if seen.insert(item).inserted { ids.append(item) }
        }
        guard ids.count <= limit else {
            throw Failure(reason: "lists \(ids.count) devices; at most \(limit) are allowed")
        }
        return ids
    }

    /// `minLon,minLat,maxLon,maxLat`; minLon > maxLon crosses the antimeridian.
    static func bbox(_ text: String) throws(Failure) -> Area {
        let usage = "must be 4 numbers: minLon,minLat,maxLon,maxLat"
        let corners = try numbers(text, count: 4, usage: usage)
        guard (-180...180).contains(corners[0]), (-180...180).contains(corners[2]) else {
            throw Failure(reason: "\(usage); longitudes must be between -180 and 180")
        }
        guard (-90...90).contains(corners[1]), (-90...90).contains(corners[3]) else {
            throw Failure(reason: "\(usage); latitudes must be between -90 and 90")
        }
        guard corners[1] < corners[3] else { throw Failure(reason: "\(usage); minLat must be less than maxLat") }
        guard Area.eastwardSpan(from: corners[0], to: corners[2]) > 0 else {
            throw Failure(reason: "\(usage); \(Area.noWidthReason)")
        }
        return .bbox(minLon: corners[0], minLat: corners[1], maxLon: corners[2], maxLat: corners[3])
    }

    /// `lon,lat,radius_m`: a circle, longitude first as in GeoJSON.
    static func near(_ text: String) throws(Failure) -> Area {
        let usage = "must be 3 numbers: lon,lat,radius_m"
        let values = try numbers(text, count: 3, usage: usage)
        guard (-180...180).contains(values[0]) else {
            throw Failure(reason: "\(usage); lon must be between -180 and 180")
        }
        guard (-90...90).contains(values[1]) else { throw Failure(reason: "\(usage); lat must be between -90 and 90") }
        guard values[2] > 0 else { throw Failure(reason: "\(usage); radius_m must be greater than 0") }
        return .circle(lon: values[0], lat: values[1], radiusMeters: values[2])
    }

    /// The items of `text`, split at commas and blanks.
    static func split(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
    }

    private static func numbers(_ text: String, count: Int, usage: String) throws(Failure) -> [Double] {
        let items = split(text)
        let values = items.compactMap { Double($0) }.filter(\.isFinite)
        guard items.count == count, values.count == count else {
            throw Failure(reason: "\(usage), not '\(text)'")
        }
        return values
    }
}
