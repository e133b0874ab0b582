/// The numeric limits PROTOCOL.md v1 sets, in one place.
public enum ProtocolLimits: Sendable {
    /// The protocol version sent as `proto` in `welcome`.
    public static let version: Int64 = 1
    /// The most device ids one `subscribe` may list.
    public static let maxDevicesPerSubscribe = 1000
    /// The most locations one `publish` (or one HTTP batch) may carry.
    public static let maxLocationsPerPublish = 1000
    /// The longest device id or `sub` id, in characters (Unicode scalars).
    public static let maxIdLength = 128
    /// The largest `attrs` object, in bytes of compact JSON.
    public static let maxAttrsBytes = 512
    /// The largest `ts`: 2^53 milliseconds, the last integer every JSON client holds exactly.
    public static let maxTimestamp: Int64 = 1 << 53
    /// How deeply arrays and objects may nest in one message; deeper input is `bad_json`.
    public static let maxJSONDepth = 64
}
