extension Location {
    /// Decodes and validates one location object.
    ///
    /// - Parameters:
    ///   - name: the location's path in messages, such as `loc`, `locs[3]` or `[3]`.
    ///   - readsSeq: true for `loc` frames from the server; publishers' `seq` is ignored.
    init(json: JSONValue, name: String, op: String?, readsSeq: Bool) throws(ProtocolError) {
        let fields = try FieldReader(object: json, name: name, expectation: "a location object", op: op)
        typealias Rules = LocationFieldRules
        self.init(
            device: try fields.required("device", Rules.device),
            lat: try fields.required("lat", Rules.lat),
            lon: try fields.required("lon", Rules.lon),
            ts: try fields.required("ts", Rules.ts),
            seq: readsSeq ? try fields.required("seq", Rules.seq) : 0,
            speed: try fields.optional("speed", Rules.nonNegative),
            heading: try fields.optional("heading", Rules.heading),
            acc: try fields.optional("acc", Rules.nonNegative),
            attrs: try fields.optional("attrs", Rules.attrs)
        )
    }

    /// Decodes a JSON array of 1 to 1000 locations, all or nothing.
    ///
    /// - Parameter name: the array's path in messages (`locs`), or "" for a bare array.
    static func decodeList(
        _ json: JSONValue, name: String, op: String?
    ) throws(ProtocolError) -> [Location] {
        let expectation = "an array of 1 to \(ProtocolLimits.maxLocationsPerPublish) locations"
        let subject = name.isEmpty ? "the body" : name
        guard case .array(let items) = json, !items.isEmpty else {
            throw ProtocolError(.badRequest, "\(subject) must be \(expectation)", failedOp: op)
        }
        guard items.count <= ProtocolLimits.maxLocationsPerPublish else {
            throw ProtocolError(
                .tooLarge,
                "\(subject) holds \(items.count) locations; at most \(ProtocolLimits.maxLocationsPerPublish) are allowed",
                failedOp: op)
        }
        var locations: [Location] = []
        locations.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            locations.append(try Location(json: item, name: "\(name)[\(index)]", op: op, readsSeq: false))
        }
        return locations
    }

    /// Writes the location's members, in the order PROTOCOL.md shows them.
    func appendMembers(to writer: inout JSONObjectWriter, includingSeq: Bool) {
        appendMembersBeforeSeq(to: &writer)
        if includingSeq { writer.integer("seq", seq) }
        appendMembersAfterSeq(to: &writer)
    }

    /// Writes the members that come before `seq`.
    func appendMembersBeforeSeq(to writer: inout JSONObjectWriter) {
        writer.string("device", device)
        writer.number("lat", lat)
        writer.number("lon", lon)
        writer.integer("ts", ts)
    }

    /// Writes the members that come after `seq`.
    func appendMembersAfterSeq(to writer: inout JSONObjectWriter) {
        if let speed { writer.number("speed", speed) }
        if let heading { writer.number("heading", heading) }
        if let acc { writer.number("acc", acc) }
        if let attrs { writer.value("attrs", attrs) }
    }
}

/// The rules of a location's fields, built once: a rule is a closure and its words, and
/// building them again for each of a publish's locations cost an allocation or a string
/// interpolation apiece.
enum LocationFieldRules {
    static let device = FieldRule<String>.deviceID
    static let lat = FieldRule<Double>.latitude
    static let lon = FieldRule<Double>.longitude
    static let ts = FieldRule<Int64>.timestamp
    static let seq = FieldRule<UInt64>.sequence
    static let nonNegative = FieldRule<Double>.nonNegative
    static let heading = FieldRule<Double>.heading
    static let attrs = FieldRule<JSONValue>.attributes
}
