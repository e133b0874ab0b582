import Foundation
import LocationStore
import Locking
import LocstreamProtocol

// store-bench: fills a store with N devices (and H history updates each), then measures
// what a node start costs: opening the store and loading every device, the resident
// memory the loaded snapshot takes, and the bytes on disk per device; then a retention
// sweep over them; then, on a fresh store, the enqueue-to-commit latency (what a publish
// ack waits for) at 20,000 updates a second, with sync normal and full.
//
//   swift build -c release --product store-bench
//   .build/release/store-bench [devices=1000000] [history=1] [directory=/tmp/locstream-store-bench]
//
// `store-bench fill DIRECTORY DEVICES [HISTORY]` only fills a store and leaves it (for a
// server to start on: deploy/loadtest/store-figures.sh).
// `store-bench writer-cost DIRECTORY [devices] [rate] [seconds]` measures the writer's
// CPU per update (see WriterCost.swift).
// `store-bench publish-until-killed DIRECTORY` is the child the store's SIGKILL test kills
// (see PublishUntilKilled.swift).

if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "publish-until-killed" {
    try publishUntilKilled(directory: CommandLine.arguments[2])
}
if CommandLine.arguments.count >= 3, CommandLine.arguments[1] == "writer-cost" {
    let numbers = CommandLine.arguments.dropFirst(3).map { Int($0) }
    func number(_ index: Int, _ fallback: Int) -> Int { numbers.count > index ? numbers[index] ?? fallback : fallback }
    try measureWriterCost(
        directory: CommandLine.arguments[2], devices: number(0, 1000), rate: number(1, 60_000),
        seconds: number(2, 5))
}

let arguments = CommandLine.arguments.dropFirst()
let devices = arguments.first.flatMap { Int($0) } ?? 1_000_000
let history = arguments.dropFirst().first.flatMap { Int($0) } ?? 1
let directory = arguments.dropFirst(2).first ?? "/tmp/locstream-store-bench"

func residentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
        let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
    else { return 0 }
    return kilobytes * 1024
}

/// Enqueues `updates`, waiting while the queue is full.
func enqueueWaiting(
    _ updates: [EncodedLocation], to store: LocationStore, completion: CommitCompletion? = nil
) throws(StoreError) {
    while true {
        do throws(StoreError) {
            try store.enqueue(updates, completion: completion)
            return
        } catch {
            guard error.kind == .queueFull else { throw error }
            Thread.sleep(forTimeInterval: 0.005)
        }
    }
}

/// The enqueue-to-commit latencies at `rate` updates a second for `duration`, over
/// 10,000 devices keeping 10 updates each, on a fresh store synced as `sync`.
func ackLatencies(sync: SyncMode, rate: Int, duration: Duration) throws -> (latencies: [Duration], commits: Int) {
    let path = directory + "-acks"
    try? FileManager.default.removeItem(atPath: path)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let store = try LocationStore.open(directory: path, sync: sync, historySize: 10)
    let latencies = Locked<[Duration]>([])
    let clock = ContinuousClock()
    let start = clock.now
    var sent = 0
    while clock.now - start < duration {
        let due = Int((clock.now - start).seconds * Double(rate))
        while sent < due {
            let enqueued = clock.now
            let location = Location(device: "ack-\(sent % 10_000)", lat: 52.5, lon: 13.4, ts: 0, seq: UInt64(sent + 1))
            try enqueueWaiting([EncodedLocation(location)], to: store) { _ in
                latencies.withLock { $0.append(clock.now - enqueued) }
            }
            sent += 1
        }
        Thread.sleep(forTimeInterval: 0.0002)
    }
    store.close()
    return (latencies.withLock { $0 }.sorted(), store.statistics.commits)
}

func seconds(_ duration: Duration) -> String {
    String(format: "%.2f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
}

/// Fills a new store in `directory` with `devices` devices of `history` updates each and
/// closes it; returns how long that took.
func fill(_ directory: String, devices: Int, history: Int) throws -> Duration {
    try? FileManager.default.removeItem(atPath: directory)
    let clock = ContinuousClock()
    let batch = 10_000
    let started = clock.now
    let store = try LocationStore.open(directory: directory, historySize: history, queueCapacity: batch * 4)
    for round in 0..<max(history, 1) {
        for start in stride(from: 0, to: devices, by: batch) {
            let updates = (start..<min(start + batch, devices)).map { index in
                EncodedLocation(
                    Location(
                        device: "veh-\(index)", lat: 52.3 + Double(index % 1000) / 5000,
                        lon: 13.2 + Double(index % 777) / 5000,
                        ts: 1_764_000_000_000 + Int64(round), seq: UInt64(round + 1), speed: 8.3, heading: 92))
            }
            try enqueueWaiting(updates, to: store)
        }
    }
    store.close()
    return clock.now - started
}

if CommandLine.arguments.count >= 4, CommandLine.arguments[1] == "fill" {
    let words = CommandLine.arguments
    let filled = try fill(
        words[2], devices: Int(words[3]) ?? 1_000_000, history: words.count > 4 ? Int(words[4]) ?? 1 : 1)
    print("filled \(words[2]) in \(seconds(filled))")
    exit(0)
}

let clock = ContinuousClock()
let filled = try fill(directory, devices: devices, history: history)
print("filled \(devices) devices × \(max(history, 1)) updates in \(seconds(filled))")

let rssBefore = residentBytes()
let started = clock.now
let store = try LocationStore.open(directory: directory, historySize: history)
let opened = clock.now
let snapshot = try store.load()
let loaded = clock.now
let attributes = try FileManager.default.attributesOfItem(atPath: store.databasePath)
let fileBytes = (attributes[.size] as? Int) ?? 0
print("open: \(seconds(opened - started)), load: \(seconds(loaded - opened)), \(snapshot.devices.count) devices")
print("RSS of the loaded snapshot: \((residentBytes() - rssBefore) / 1_048_576) MiB")
print("file: \(fileBytes / 1_048_576) MiB, \(fileBytes / max(devices, 1)) bytes per device (history \(history))")
let sweep = clock.now
let removed = try await store.removeSilent(olderThan: Date(timeIntervalSince1970: 0))
print("retention sweep over \(snapshot.devices.count) devices (\(removed) removed): \(seconds(clock.now - sweep))")
store.close()
try? FileManager.default.removeItem(atPath: directory)

for sync in [SyncMode.normal, .full] {
    let (latencies, commits) = try ackLatencies(sync: sync, rate: 20_000, duration: .seconds(3))
    func percentile(_ fraction: Double) -> String {
        let latency = latencies[min(Int(Double(latencies.count) * fraction), latencies.count - 1)]
        return String(format: "%.2f ms", latency.seconds * 1000)
    }
    print(
        "enqueue to commit at 20000 updates/s, sync \(sync.rawValue): p50 \(percentile(0.5)), p90 \(percentile(0.9)), "
            + "p99 \(percentile(0.99)), max \(percentile(1)), "
            + "\(latencies.count) updates in \(commits) commits")
}
