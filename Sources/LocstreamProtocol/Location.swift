/// One position report of one device.
public struct Location: Sendable, Equatable {
    /// The device id: 1 to 128 characters of `[A-Za-z0-9._:-]`.
    public var device: String
    /// Latitude in degrees, −90…90.
    public var lat: Double
    /// Longitude in degrees, −180…180.
    public var lon: Double
    /// Device time in milliseconds since the Unix epoch, 0…2^53.
    public var ts: Int64
    /// The server-assigned sequence number, strictly increasing per device; 0 = not yet assigned.
    public var seq: UInt64
    /// Speed in m/s, ≥ 0.
    public var speed: Double?
    /// Heading in degrees, 0–360.
    public var heading: Double?
    /// Accuracy in metres, ≥ 0.
    public var acc: Double?
    /// Free-form attributes passed to subscribers unchanged: an object, at most 512 bytes as JSON.
    public var attrs: JSONValue?

    /// Creates a location; `seq` stays 0 until the server assigns one.
    public init(
        device: String,
        lat: Double,
        lon: Double,
        ts: Int64,
        seq: UInt64 = 0,
        speed: Double? = nil,
        heading: Double? = nil,
        acc: Double? = nil,
        attrs: JSONValue? = nil
    ) {
        self.device = device
        self.lat = lat
        self.lon = lon
        self.ts = ts
        self.seq = seq
        self.speed = speed
        self.heading = heading
        self.acc = acc
        self.attrs = attrs
    }
}
