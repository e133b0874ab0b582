import Foundation
import LocationStore
import LocstreamProtocol

/// `store-bench publish-until-killed DIRECTORY`: what a node does to the store, until
/// someone sends it SIGKILL (the store's crash test does). Publishes to 50 devices as
/// fast as the queue takes them, seqs handed out as the broker does (above the
/// snapshot's seqs and floor), and prints `sent DEVICE SEQ` before each update could
/// reach a subscriber and `acked DEVICE SEQ` once its commit is reported, each line
/// written straight to the descriptor so a kill loses none that was printed.
func publishUntilKilled(directory: String) throws -> Never {
    let store = try LocationStore.open(directory: directory, historySize: 5, queueCapacity: 2_000)
    let snapshot = try store.load()
    var seqs = Dictionary(uniqueKeysWithValues: snapshot.devices.map { ($0.last.location.device, $0.seq) })
    /// One `write(2)` per line: atomic on a pipe (shorter than `PIPE_BUF`), from any thread.
    @Sendable func say(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    }
    var round = 0
    while true {
        let device = "k-\(round % 50)"
        round += 1
        let seq = (seqs[device] ?? snapshot.seqFloor) + 1
        let update = EncodedLocation(Location(device: device, lat: 52.5, lon: 13.4, ts: 0, seq: seq))
        // Said before the enqueue: its commit (and its `acked` line, on the writer thread)
        // may come before enqueue returns. A refused update is tried again with this seq.
        say("sent \(device) \(seq)")
        do {
            try store.enqueue([update]) { result in
                if case .success = result { say("acked \(device) \(seq)") }
            }
        } catch {
            Thread.sleep(forTimeInterval: 0.001)
            continue
        }
        seqs[device] = seq
    }
}
