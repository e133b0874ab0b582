import Foundation
import LocstreamProtocol

/// Where the embedded broker keeps what must outlive the process (`--store sqlite`):
/// every device's seq, last position and history. The broker loads it once at start
/// and keeps seqs and last positions in memory, so snapshots never read the disk.
///
/// Fan-out never waits for the disk: the broker hands each publication to `write`
/// inside its critical section (so writes queue in seq order) and delivers it at once;
/// only the publisher's answer waits for the commit (a `OneShot` the completion fulfils;
/// a publisher whose task is cancelled meanwhile stops waiting).
public protocol DeviceStore: Sendable {
    /// What the store holds: each device's last position and the seq it continues above.
    func load() throws(BrokerError) -> StoredDevices

    /// Queues `updates` (one publication, seqs assigned), heard at `heardAt`, and calls
    /// `committed` (if given) once they are durable, or with the reason they are not. Never blocks;
    /// throws when the store cannot take them now, and then the broker hands out nothing.
    func write(
        _ updates: [EncodedLocation], heardAt: Date, committed: (@Sendable (Result<Void, BrokerError>) -> Void)?
    ) throws(BrokerError)

    /// The stored updates of `device` after `seq`, oldest first: history older than the
    /// broker keeps in memory.
    func history(_ device: String, after seq: UInt64) throws(BrokerError) -> [EncodedLocation]

    /// Removes the devices not heard from since `cutoff`, with their history.
    func removeSilent(olderThan cutoff: Date) async throws(BrokerError) -> Int

    /// False while writes fail (a full disk, I/O errors): `/readyz` answers 503.
    var isHealthy: Bool { get }

    /// Commits what is queued and closes the store (a clean shutdown).
    func close()
}

/// What a `DeviceStore` held at start.
public struct StoredDevices: Sendable {
    /// One stored device.
    public struct Device: Sendable {
        /// Its last position, as encoded.
        public var last: EncodedLocation
        /// The seq its next update goes above: its last one, or higher after a crash.
        public var seq: UInt64
        /// When it was last heard, on the wall clock.
        public var lastHeard: Date

        /// A device whose last position is `last`, continuing above `seq`, heard at `lastHeard`.
        public init(last: EncodedLocation, seq: UInt64, lastHeard: Date) {
            self.last = last
            self.seq = seq
            self.lastHeard = lastHeard
        }
    }

    /// Every stored device.
    public var devices: [Device]
    /// The seq a device not in `devices` starts above.
    public var seqFloor: UInt64

    /// `devices`, with new ones starting above `seqFloor`.
    public init(devices: [Device], seqFloor: UInt64) {
        self.devices = devices
        self.seqFloor = seqFloor
    }
}
