import LocstreamProtocol

/// A device's position as the Redis scripts keep and pass it: `cell lat lon`, in text.
///
/// The publish script stores it before each last-known location and sends the previous
/// one with every update, so the receiving node knows which area subscriptions the
/// update enters, stays in or leaves, and on which cell channels it travels. Numbers
/// are written in Swift's shortest round-trip form, so they read back exactly.
struct PositionLine: Equatable {
    var cell: Int
    var lat: Double
    var lon: Double

    /// The position of `location`, in `cell`.
    init(_ location: Location, cell: Int) {
        self.cell = cell
        lat = location.lat
        lon = location.lon
    }

    /// Reads a line written by `text`; nil if it is not one.
    init?(parsing line: some Collection<UInt8>) {
        let fields = line.split(separator: UInt8(ascii: " ")).map { String(decoding: $0, as: UTF8.self) }
        guard fields.count == 3, let cell = Int(fields[0]), let lat = Double(fields[1]), let lon = Double(fields[2])
        else { return nil }
        self.cell = cell
        self.lat = lat
        self.lon = lon
    }

    /// `cell lat lon`.
    var text: String { "\(cell) \(lat) \(lon)" }
}

/// An update as a channel carries it and the `last` hash stores it: a position line
/// (the device's previous position on a channel, its own in the hash; empty when
/// there is none), a newline, then the encoded location's body.
struct StoredUpdate {
    /// The position on the first line, if any.
    let position: PositionLine?
    /// The update itself, bytes kept as Redis holds them.
    let update: EncodedLocation

    /// Splits and decodes `payload`; the error says why it is not an update.
    init(payload: [UInt8]) throws(RedisFailure) {
        guard let newline = payload.firstIndex(of: UInt8(ascii: "\n")) else {
            throw RedisFailure("stored update has no position line")
        }
        let line = payload[..<newline]
        position = line.isEmpty ? nil : PositionLine(parsing: line)
        guard line.isEmpty || position != nil else { throw RedisFailure("stored update has a bad position line") }
        do {
            update = try EncodedLocation(body: Array(payload[payload.index(after: newline)...]))
        } catch {
            throw RedisFailure("stored update is not a location: \(error.message)")
        }
    }

    /// The position line as a location of the update's device, for the hub's area match.
    var previousLocation: Location? {
        position.map { Location(device: update.location.device, lat: $0.lat, lon: $0.lon, ts: 0) }
    }
}
