import Foundation
import LocationStore
import LocstreamProtocol

/// `store-bench writer-cost DIRECTORY [devices=1000] [rate=60000] [seconds=5]`: what the
/// writer costs per update, in CPU time, for a stream of publications without ack
/// (`--history-size 100`, as the server's default): `rate` updates a second, round robin
/// over `devices` devices, paced every millisecond. CPU time is the process's, less the
/// publishing thread's own, so it stays comparable on a busy machine, where wall-clock
/// throughput would not.
func measureWriterCost(directory: String, devices: Int, rate: Int, seconds: Int) throws -> Never {
    try? FileManager.default.removeItem(atPath: directory)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = try LocationStore.open(directory: directory, historySize: 100)
    let processBefore = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID)
    let publisherBefore = cpuSeconds(CLOCK_THREAD_CPUTIME_ID)
    let clock = ContinuousClock()
    let start = clock.now
    var sent = 0
    var refused = 0
    while clock.now - start < .seconds(seconds) {
        let due = Int((clock.now - start).seconds * Double(rate))
        while sent < due {
            let device = sent % devices
            let location = Location(
                device: "veh-\(device)", lat: 52.3 + Double(sent % 997) / 5000, lon: 13.2, ts: 1_764_000_000_000,
                seq: UInt64(sent / devices + 1), speed: 8.3, heading: 92)
            do {
                try store.enqueue([EncodedLocation(location)])
            } catch {
                refused += 1
            }
            sent += 1
        }
        Thread.sleep(forTimeInterval: 0.001)
    }
    let publisher = cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - publisherBefore
    store.close()
    let writer = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - processBefore - publisher
    let written = sent - refused
    let perUpdate = writer / Double(max(written, 1)) * 1e6
    print(
        String(
            format:
                "writer-cost: %d updates over %d devices at %d/s: %.2f µs of CPU per update written (%d refused, %d commits)",
            written, devices, rate, perUpdate, refused, store.statistics.commits))
    exit(0)
}

/// CPU seconds on `clock`: the process's or the calling thread's.
private func cpuSeconds(_ clock: clockid_t) -> Double {
    var time = timespec()
    clock_gettime(clock, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
