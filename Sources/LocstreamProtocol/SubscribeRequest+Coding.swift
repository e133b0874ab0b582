extension SubscribeRequest {
    /// Decodes and validates the fields of a `subscribe` op.
    init(fields: FieldReader) throws(ProtocolError) {
        self.init(
            sub: try fields.required("sub", .identifier),
            target: try Self.target(fields),
            snapshot: try fields.optional("snapshot", .boolean) ?? true,
            since: try Self.since(fields),
            minIntervalMs: try fields.optional("min_interval_ms", .nonNegativeInteger).map { Int($0) },
            minDistanceMeters: try fields.optional("min_distance_m", .nonNegative),
            aggregate: try Self.aggregate(fields)
        )
    }

    /// The `aggregate` of an area subscription: a member of the subscribe, or of its `area`.
    private static func aggregate(_ fields: FieldReader) throws(ProtocolError) -> CellAggregation? {
        var nested: JSONValue?
        if case .object(let area)? = fields.members["area"] { nested = area["aggregate"] }
        switch (fields.members["aggregate"], nested) {
        case (nil, nil):
            return nil
        case (.some, .some):
            throw fields.failure("aggregate is given twice: at the top level and inside area")
        case (let json?, nil), (nil, let json?):
            guard fields.has("area") else { throw fields.failure("aggregate needs an area target, not devices") }
            guard (try fields.optional("min_distance_m", .nonNegative) ?? 0) == 0 else {
                throw fields.failure("min_distance_m does not apply to an aggregated area; leave it out")
            }
            return try CellAggregation(json: json, op: fields.op)
        }
    }

    private static func target(_ fields: FieldReader) throws(ProtocolError) -> SubscriptionTarget {
        switch (fields.members["devices"], fields.members["area"]) {
        case (let devices?, nil):
            return .devices(try deviceList(devices, fields))
        case (nil, let area?):
            return .area(try Area(json: area, op: fields.op))
        case (nil, nil):
            throw fields.failure("subscribe needs exactly one target: devices or area")
        case (.some, .some):
            throw fields.failure("subscribe takes exactly one target: devices or area, not both")
        }
    }

    /// The listed ids, duplicates dropped, first occurrences kept in order.
    private static func deviceList(
        _ json: JSONValue, _ fields: FieldReader
    ) throws(ProtocolError) -> [String] {
        let limit = ProtocolLimits.maxDevicesPerSubscribe
        guard case .array(let items) = json, !items.isEmpty else {
            throw fields.invalid("devices", "an array of 1 to \(limit) device ids")
        }
        guard items.count <= limit else {
            throw fields.failure(
                "devices lists \(items.count) device ids; at most \(limit) are allowed", code: .tooLarge)
        }
        var seen: Set<String> = []
        var ids: [String] = []
        for (index, item) in items.enumerated() {
            guard let id = FieldRule<String>.deviceID.accept(item) else {
                throw fields.invalid("devices[\(index)]", FieldRule<String>.deviceID.expectation)
            }
            if seen.insert(id).inserted { ids.append(id) }
        }
        return ids
    }

    private static func since(_ fields: FieldReader) throws(ProtocolError) -> [String: UInt64] {
        guard let json = fields.members["since"] else { return [:] }
        guard case .object(let members) = json else {
            throw fields.invalid("since", "an object mapping device ids to the last seq seen")
        }
        var since: [String: UInt64] = [:]
        for (device, value) in members.sorted(by: { $0.key < $1.key }) {
            guard DeviceID.isValid(device) else {
                throw fields.failure("since keys must be device ids: \(DeviceID.rule)")
            }
            guard let seq = FieldRule<UInt64>.sequence.accept(value) else {
                throw fields.invalid("since.\(device)", FieldRule<UInt64>.sequence.expectation)
            }
            since[device] = seq
        }
        return since
    }

    /// Writes the request's members after `"op":"subscribe"`.
    func appendMembers(to writer: inout JSONObjectWriter) {
        writer.string("sub", sub)
        switch target {
        case .devices(let ids):
            writer.value("devices", .array(ids.map(JSONValue.string)))
        case .area(let area):
            writer.key("area")
            area.append(to: &writer.bytes)
        }
        writer.bool("snapshot", snapshot)
        if !since.isEmpty {
            writer.key("since")
            writer.bytes.append(.openBrace)
            for (position, entry) in since.sorted(by: { $0.key < $1.key }).enumerated() {
                if position > 0 { writer.bytes.append(.comma) }
                writer.bytes.appendJSONString(entry.key)
                writer.bytes.append(.colon)
                writer.bytes.appendJSONInteger(entry.value)
            }
            writer.bytes.append(.closeBrace)
        }
        if let minIntervalMs { writer.integer("min_interval_ms", Int64(minIntervalMs)) }
        if let minDistanceMeters { writer.number("min_distance_m", minDistanceMeters) }
        if let aggregate {
            writer.key("aggregate")
            aggregate.append(to: &writer.bytes)
        }
    }
}
