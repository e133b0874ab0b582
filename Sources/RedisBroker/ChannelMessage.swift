/// A message on a device or cell channel, as the publish script sends it: the seq floor
/// of the epoch it was published in, a newline, then a `StoredUpdate` (the device's
/// previous position line, a newline, the encoded location).
///
/// The floor lets a node tell a seq jump of a new epoch from updates it missed.
struct ChannelMessage {
    /// The seq floor of the epoch the update belongs to.
    let floor: UInt64
    /// The update and the device's previous position.
    let stored: StoredUpdate

    /// Splits and decodes `payload`; the error says why it is not a message.
    init(payload: [UInt8]) throws(RedisFailure) {
        guard let newline = payload.firstIndex(of: UInt8(ascii: "\n")),
            let floor = UInt64(seqDigits: payload[..<newline])
        else { throw RedisFailure("channel message does not start with a seq floor") }
        self.floor = floor
        stored = try StoredUpdate(payload: Array(payload[payload.index(after: newline)...]))
    }
}

/// What a script that may begin an epoch reports (see `RedisScripts`): the seq floor of
/// the current epoch, and whether and why this call began it.
struct EpochReport: Equatable {
    /// Why a new epoch began, if it did.
    enum Beginning: Int64 {
        /// The epoch was already current.
        case none = 0
        /// The epoch key was missing: a fresh Redis, or one that lost its data.
        case missingKey = 1
        /// The epoch key named another Redis process: a restart or a failover, which may
        /// have lost the latest writes.
        case otherProcess = 2
    }

    let floor: UInt64
    let began: Beginning

    /// A report of the epoch with `floor`, which `began` (or not) with this call.
    init(floor: UInt64, began: Beginning = .none) {
        self.floor = floor
        self.began = began
    }

    /// Reads the first two elements of a script's reply.
    init(_ elements: ArraySlice<RedisReply>) throws(RedisFailure) {
        guard elements.count >= 2, let floor = elements.first.flatMap(UInt64.init(seqReply:)),
            let began = elements.dropFirst().first?.integer.flatMap(Beginning.init(rawValue:))
        else { throw RedisFailure("unexpected epoch in a reply from Redis") }
        self.floor = floor
        self.began = began
    }
}

/// The publish script's reply: the epoch, then one seq per location.
struct PublishReply {
    let epoch: EpochReport
    let seqs: [UInt64]

    /// Whether `reply` refuses a publish for naming new devices past the device limit.
    static func refusesDevices(_ reply: RedisReply) -> Bool {
        guard let elements = reply.elements, elements.count == 3, let marker = elements[2].bytes else { return false }
        return marker.elementsEqual("max_devices".utf8)
    }

    /// Reads `reply` to a publish of `count` locations.
    init(_ reply: RedisReply, count: Int) throws(RedisFailure) {
        guard let elements = reply.elements else { throw RedisFailure("unexpected reply from Redis") }
        let epoch = try EpochReport(elements[...])
        let seqs = elements.dropFirst(2).compactMap(UInt64.init(seqReply:))
        guard seqs.count == count, elements.count == count + 2, seqs.allSatisfy({ $0 > epoch.floor }) else {
            throw RedisFailure("unexpected seqs in a reply from Redis")
        }
        self.epoch = epoch
        self.seqs = seqs
    }
}

extension UInt64 {
    /// The largest seq a JSON double holds exactly.
    static let seqLimit: UInt64 = 1 << 53

    /// A seq or floor written in digits: a whole number from 0 to 2^53.
    init?(seqDigits digits: some Collection<UInt8>) {
        guard !digits.isEmpty, digits.count <= 16, digits.allSatisfy({ (48...57).contains($0) }),
            let value = UInt64(String(decoding: digits, as: UTF8.self)), value <= .seqLimit
        else { return nil }
        self = value
    }

    /// A seq or floor in a reply: an integer reply, or a string of digits, from 0 to 2^53.
    init?(seqReply reply: RedisReply) {
        guard let value = reply.integer, value >= 0, UInt64(value) <= .seqLimit else { return nil }
        self = UInt64(value)
    }
}
