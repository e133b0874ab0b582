import Locking
import LocstreamProtocol
import Testing

@testable import StreamCore

@Suite("the hub's interest in subjects, for a shared broker")
struct HubInterestTests {
    @Test("the first subscriber of a device or cell and the last one leaving are noted; the hub knows what is watched")
    func notesFirstAndLast() throws {
        let noted = Locked<[Subject]>([])
        let hub = Hub(grid: GeoGrid(cellDegrees: 1)) { subject in noted.withLock { $0.append(subject) } }
        let one = LocationStream()
        let two = LocationStream()
        hub.register(one, for: ["veh-1", "veh-2"])
        hub.register(two, for: ["veh-1"])
        #expect(noted.withLock { $0 } == [.device("veh-1"), .device("veh-2")])
        hub.unregister(one, from: ["veh-1", "veh-2"])
        #expect(noted.withLock { $0 }.last == .device("veh-2"))
        #expect(hub.isWatched(.device("veh-1")) && !hub.isWatched(.device("veh-2")))

        noted.withLock { $0.removeAll() }
        let area = hub.register(
            two, for: .area(try GeoArea(.bbox(minLon: 10.5, minLat: 20.5, maxLon: 11.5, maxLat: 20.9)), .everyDevice))
        let cells = noted.withLock { $0 }
        #expect(cells.count == 2 && cells.allSatisfy(hub.isWatched))
        #expect(Set(hub.watchedSubjects) == Set(cells + [.device("veh-1")]))
        hub.unregister(area)
        #expect(noted.withLock { $0 }.count == 4 && !cells.contains(where: hub.isWatched))
    }

    @Test("an audience narrows delivery to device subscribers or to area subscriptions")
    func audiences() async throws {
        let hub = Hub(grid: GeoGrid(cellDegrees: 1))
        let byDevice = LocationStream()
        let byArea = LocationStream()
        hub.register(byDevice, for: ["veh-1"])
        _ = hub.register(
            byArea, for: .area(try GeoArea(.bbox(minLon: 0, minLat: 0, maxLon: 2, maxLat: 2)), .everyDevice))
        for (seq, audience) in [(1, Audience.deviceWatchers), (2, .areaWatchers), (3, .everyone)] {
            hub.deliver(
                EncodedLocation(Location(device: "veh-1", lat: 1, lon: 1, ts: 0, seq: UInt64(seq))), to: audience)
        }
        #expect(await Self.seqs(byDevice) == [1, 3])
        #expect(await Self.seqs(byArea) == [2, 3])
    }

    private static func seqs(_ stream: LocationStream) async -> [UInt64] {
        var iterator = stream.makeAsyncIterator()
        return await iterator.next()?.map(\.update.location.seq) ?? []
    }
}
