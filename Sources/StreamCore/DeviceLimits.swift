/// How many devices the embedded broker tracks, and for how long a silent one is kept.
public struct DeviceLimits: Sendable {
    /// The most devices tracked at once; a publish naming new devices past it is refused
    /// whole, while known devices keep updating (`--max-devices`).
    public var maxDevices = 100_000
    /// How long a device may stay silent before it is forgotten (`--retention`); nil
    /// keeps every device.
    public var retention: Duration? = .seconds(7 * 86_400)

    /// The defaults.
    public init() {}

    /// A limit of `maxDevices`, forgetting devices silent for `retention`.
    public init(maxDevices: Int, retention: Duration?) {
        self.maxDevices = maxDevices
        self.retention = retention
    }

    /// How often to look for silent devices: a tenth of the retention, between 1 and 60 s.
    public var sweepInterval: Duration {
        guard let retention else { return .seconds(60) }
        return min(max(retention / 10, .seconds(1)), .seconds(60))
    }
}
