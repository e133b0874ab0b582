extension Area {
    /// Decodes `{"bbox":[minLon,minLat,maxLon,maxLat]}` or `{"center":[lon,lat],"radius_m":r}`.
    init(json: JSONValue, op: String?) throws(ProtocolError) {
        let fields = try FieldReader(
            object: json, name: "area",
            expectation: "an object with either bbox or center and radius_m", op: op)
        switch (fields.has("bbox"), fields.has("center")) {
        case (true, false):
            self = try Self.bbox(fields)
        case (false, true):
            self = try Self.circle(fields)
        default:
            throw fields.failure("area must have exactly one of bbox or center (with radius_m)")
        }
    }

    private static func bbox(_ fields: FieldReader) throws(ProtocolError) -> Area {
        let expectation =
            "[minLon, minLat, maxLon, maxLat] with longitudes between -180 and 180 and latitudes between -90 and 90"
        guard let corners = coordinates(fields.members["bbox"], count: 4),
            (-180...180).contains(corners[0]), (-180...180).contains(corners[2]),
            (-90...90).contains(corners[1]), (-90...90).contains(corners[3])
        else { throw fields.invalid("bbox", expectation) }
        guard corners[1] < corners[3] else {
            throw fields.failure("area.bbox: minLat must be less than maxLat")
        }
        guard eastwardSpan(from: corners[0], to: corners[2]) > 0 else {
            throw fields.failure("area.bbox: \(noWidthReason)")
        }
        return .bbox(minLon: corners[0], minLat: corners[1], maxLon: corners[2], maxLat: corners[3])
    }

    private static func circle(_ fields: FieldReader) throws(ProtocolError) -> Area {
        guard let center = coordinates(fields.members["center"], count: 2),
            (-180...180).contains(center[0]), (-90...90).contains(center[1])
        else {
            throw fields.invalid(
                "center", "[lon, lat] with lon between -180 and 180 and lat between -90 and 90")
        }
        let radius = try fields.required("radius_m", .positive)
        return .circle(lon: center[0], lat: center[1], radiusMeters: radius)
    }

    /// The numbers of a JSON array of exactly `count` numbers, or nil.
    private static func coordinates(_ json: JSONValue?, count: Int) -> [Double]? {
        guard case .array(let items) = json, items.count == count else { return nil }
        let numbers = items.compactMap(\.doubleValue)
        return numbers.count == count ? numbers : nil
    }

    /// Writes the area as its JSON object.
    func append(to bytes: inout [UInt8]) {
        var writer = JSONObjectWriter(openBrace: true)
        switch self {
        case .bbox(let minLon, let minLat, let maxLon, let maxLat):
            writer.value("bbox", .array([minLon, minLat, maxLon, maxLat].map { .number(JSONNumber($0)) }))
        case .circle(let lon, let lat, let radiusMeters):
            writer.value("center", .array([lon, lat].map { .number(JSONNumber($0)) }))
            writer.number("radius_m", radiusMeters)
        }
        bytes.append(contentsOf: writer.finish())
    }
}
