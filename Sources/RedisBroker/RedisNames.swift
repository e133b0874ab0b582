import StreamCore

/// The keys and channels locstream uses in Redis, all under the `locstream:` prefix.
///
/// Per device: `seq:{id}` (the counter), `hist:{id}` (a stream of its recent updates,
/// entry ID `0-{seq}`), and its field in the `last` hash (`cell lat lon` then a newline
/// then the encoded location). Shared: `geo` (a geo set of last positions), `polar`
/// (devices beyond the geo set's ±85.05° latitude), `epoch` (which incarnation of the
/// data this is) and `seqfloor` (the seq every device continues above after Redis lost
/// its data). Channels: `dev:{id}` carries a device's updates, `cell:{n}` every update
/// that enters, stays in or leaves grid cell n.
enum RedisNames {
    static let prefix = "locstream:"
    static let epoch = prefix + "epoch"
    static let seqFloor = prefix + "seqfloor"
    static let last = prefix + "last"
    static let geo = prefix + "geo"
    static let polar = prefix + "polar"
    static let deviceChannelPrefix = prefix + "dev:"
    static let cellChannelPrefix = prefix + "cell:"

    /// The key of a device's seq counter.
    static func seqKey(_ device: String) -> String { prefix + "seq:" + device }

    /// The channel carrying `subject`'s updates.
    static func channel(_ subject: Subject) -> String {
        switch subject {
        case .device(let device): deviceChannelPrefix + device
        case .cell(let cell): cellChannelPrefix + String(cell)
        }
    }

    /// The subject a channel carries, if it is one of ours.
    static func subject(ofChannel channel: [UInt8]) -> Subject? {
        let name = String(decoding: channel, as: UTF8.self)
        if name.hasPrefix(deviceChannelPrefix) { return .device(String(name.dropFirst(deviceChannelPrefix.count))) }
        if name.hasPrefix(cellChannelPrefix) { return Int(name.dropFirst(cellChannelPrefix.count)).map(Subject.cell) }
        return nil
    }
}
