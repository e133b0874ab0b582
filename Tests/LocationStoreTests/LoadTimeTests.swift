import Foundation
import Testing

@testable import LocationStore

/// How long a start takes to load the devices (the 1,000,000-device figure is measured
/// with `store-bench`, in a release build; see Sources/StoreBench).
@Suite("store: load time")
struct LoadTimeTests {
    @Test("100,000 devices load in a few seconds, even in a debug build")
    func loadHundredThousand() async throws {
        let fixture = try StoreFixture()
        let devices = 100_000
        let store = try fixture.open(historySize: 1, capacity: devices)
        for start in stride(from: 0, to: devices, by: 5_000) {
            try store.enqueue((start..<start + 5_000).map { update("dev-\($0)", seq: UInt64($0 + 1)) })
        }
        store.close()
        let clock = ContinuousClock()
        let started = clock.now
        let reopened = try fixture.open(historySize: 1, capacity: devices)
        let snapshot = try reopened.load()
        let elapsed = clock.now - started
        print("store: opened and loaded \(snapshot.devices.count) devices in \(elapsed)")
        #expect(snapshot.devices.count == devices)
        #expect(elapsed < .seconds(10))
        reopened.close()
    }
}
