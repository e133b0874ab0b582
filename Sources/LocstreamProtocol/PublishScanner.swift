/// The fast path of `ClientMessage.decode` for the message publishers send most: a
/// `publish` of locations, read in one pass straight into `Location`s, with no `JSONValue`
/// tree of the message and no dictionary per location.
///
/// Every value is still parsed by `JSONParser` and checked by the rule the general decoder
/// applies (`LocationFieldRules`), so it accepts exactly what the general decoder accepts.
/// Whatever it is not sure of (another op, a syntax error, a member that repeats, a rule
/// not met, too many locations) makes it return nil, and the general decoder answers with
/// its exact error.
struct PublishScanner {
    private var parser: JSONParser

    /// The publish `bytes` spell, or nil when the general decoder must read them.
    static func decode(_ bytes: [UInt8]) -> ClientMessage? {
        var scanner = PublishScanner(parser: JSONParser(bytes))
        return try? scanner.message()
    }

    private mutating func message() throws(ProtocolError) -> ClientMessage? {
        parser.skipWhitespace()
        guard parser.take(.openBrace) else { return nil }
        var isPublish = false
        var locations: [Location]?
        var ack: Bool?
        repeat {
            parser.skipWhitespace()
            let key = try parser.parseKey()
            switch key {
            case "op":
                guard !isPublish, case .string("publish") = try parser.parseValue(depth: 1) else { return nil }
                isPublish = true
            case "loc":
                guard locations == nil, let location = try location(depth: 1) else { return nil }
                locations = [location]
            case "locs":
                guard locations == nil, let list = try locationList() else { return nil }
                locations = list
            case "ack":
                guard ack == nil, let flag = FieldRule.boolean.accept(try parser.parseValue(depth: 1)) else {
                    return nil
                }
                ack = flag
            default:
                _ = try parser.parseValue(depth: 1)
            }
            parser.skipWhitespace()
        } while parser.take(.comma)
        guard parser.take(.closeBrace) else { return nil }
        parser.skipWhitespace()
        guard parser.isAtEnd, isPublish, let locations else { return nil }
        return .publish(locations, ack: ack ?? false)
    }

    /// The array of `locs`: 1 to `ProtocolLimits.maxLocationsPerPublish` locations.
    private mutating func locationList() throws(ProtocolError) -> [Location]? {
        parser.skipWhitespace()
        guard parser.take(.openBracket) else { return nil }
        var list: [Location] = []
        repeat {
            guard list.count < ProtocolLimits.maxLocationsPerPublish, let location = try location(depth: 2) else {
                return nil
            }
            list.append(location)
            parser.skipWhitespace()
        } while parser.take(.comma)
        return parser.take(.closeBracket) ? list : nil
    }

    /// One location object, found inside `depth` arrays and objects.
    private mutating func location(depth: Int) throws(ProtocolError) -> Location? {
        typealias Rules = LocationFieldRules
        parser.skipWhitespace()
        guard parser.take(.openBrace) else { return nil }
        var fields = Fields()
        repeat {
            parser.skipWhitespace()
            let key = try parser.parseKey()
            parser.skipWhitespace()
            let start = parser.offset
            let value = try parser.parseValue(depth: depth + 1)
            let accepted: Bool
            switch key {
            case "device": accepted = Self.set(&fields.device, Rules.device.accept(value))
            case "lat": accepted = Self.set(&fields.lat, Rules.lat.accept(value))
            case "lon": accepted = Self.set(&fields.lon, Rules.lon.accept(value))
            case "ts": accepted = Self.set(&fields.ts, Rules.ts.accept(value))
            case "speed": accepted = Self.set(&fields.speed, Rules.nonNegative.accept(value))
            case "heading": accepted = Self.set(&fields.heading, Rules.heading.accept(value))
            case "acc": accepted = Self.set(&fields.acc, Rules.nonNegative.accept(value))
            case "attrs": accepted = Self.set(&fields.attrs, Self.attributes(value, written: parser.offset - start))
            default: accepted = true
            }
            guard accepted else { return nil }
            parser.skipWhitespace()
        } while parser.take(.comma)
        guard parser.take(.closeBrace), let device = fields.device, let lat = fields.lat, let lon = fields.lon,
            let ts = fields.ts
        else { return nil }
        return Location(
            device: device, lat: lat, lon: lon, ts: ts, speed: fields.speed, heading: fields.heading,
            acc: fields.acc, attrs: fields.attrs)
    }

    /// `attrs`, written in `written` bytes: the rule measures the value encoded, and an
    /// encoding is never longer than the text it was parsed from (it drops whitespace and
    /// repeated keys, and its escapes are never longer than the input's), so text within
    /// the limit needs no encoding to be measured.
    private static func attributes(_ value: JSONValue, written: Int) -> JSONValue? {
        guard written > ProtocolLimits.maxAttrsBytes else {
            guard case .object = value else { return nil }
            return value
        }
        return LocationFieldRules.attrs.accept(value)
    }

    /// Stores `value` in an empty `field`; false when the value broke its rule (nil) or
    /// the member repeats, which only the general decoder resolves.
    private static func set<Value>(_ field: inout Value?, _ value: Value?) -> Bool {
        guard field == nil, let value else { return false }
        field = value
        return true
    }

    /// The members of one location read so far.
    private struct Fields {
        var device: String?
        var lat: Double?
        var lon: Double?
        var ts: Int64?
        var speed: Double?
        var heading: Double?
        var acc: Double?
        var attrs: JSONValue?
    }
}
