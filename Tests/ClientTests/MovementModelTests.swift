import LocstreamProtocol
import Testing

@testable import Client

/// The simulated vehicles: where they go, how fast, how they turn, and that a seed replays them.
@Suite("movement model")
struct MovementModelTests {
    /// A small area, so vehicles meet its edges often.
    private let small = SimulationArea(minLon: 13.40, minLat: 52.50, maxLon: 13.41, maxLat: 52.505)

    /// Every report of `devices` vehicles over `seconds` at `rate` Hz, by device.
    private func tracks(
        seed: UInt64, devices: Int, rate: Double, seconds: Double, area: SimulationArea
    ) -> [[Location]] {
        var fleet = Fleet(count: devices, prefix: "sim-", seed: seed, area: area)
        let schedule = PublishSchedule(deviceCount: devices, rate: rate, duration: seconds)
        var tracks = Array(repeating: [Location](), count: devices)
        for number in 0..<(schedule.totalReports ?? 0) {
            let device = schedule.device(of: number)
            if !schedule.isFirst(number) { fleet.advance(device, by: schedule.interval) }
            tracks[device].append(fleet.report(device, ts: schedule.offsetMilliseconds(of: number)))
        }
        return tracks
    }

    @Test("vehicles stay inside the area, in a large one and in a small one", arguments: [0, 1])
    func staysInArea(which: Int) {
        let area = which == 0 ? SimulationArea.berlin : small
        for track in tracks(seed: 7, devices: 40, rate: 1, seconds: 900, area: area) {
            for location in track {
                #expect(area.contains(GeoPoint(lat: location.lat, lon: location.lon)), "\(location)")
            }
        }
    }

    @Test("speeds are plausible: reported and travelled both within the model's maximum")
    func plausibleSpeeds() {
        let model = MovementModel()
        var moving = 0
        for track in tracks(seed: 11, devices: 30, rate: 1, seconds: 600, area: .berlin) {
            for (before, after) in zip(track, track.dropFirst()) {
                let speed = after.speed ?? -1
                #expect((0...model.maxSpeed).contains(speed))
                let seconds = Double(after.ts - before.ts) / 1000
                let travelled = GeoMath.distance(
                    GeoPoint(lat: before.lat, lon: before.lon), GeoPoint(lat: after.lat, lon: after.lon))
                #expect(travelled <= model.maxSpeed * seconds + 0.05, "\(travelled) m in \(seconds) s")
                if speed > 1 { moving += 1 }
            }
        }
        // Most of the time vehicles drive; some of it they stand at stops.
        #expect(moving > 30 * 600 / 2)
    }

    @Test("the same seed replays the same routes; another seed does not")
    func deterministic() {
        let first = tracks(seed: 2024, devices: 5, rate: 2, seconds: 120, area: .berlin)
        let again = tracks(seed: 2024, devices: 5, rate: 2, seconds: 120, area: .berlin)
        let other = tracks(seed: 2025, devices: 5, rate: 2, seconds: 120, area: .berlin)
        #expect(first == again)
        #expect(first != other)
        // A device's path depends on its index and the seed, not on how many others there are.
        let more = tracks(seed: 2024, devices: 8, rate: 2, seconds: 120, area: .berlin)
        #expect(first[0].map(\.lat) == more[0].map(\.lat))
    }

    @Test("heading changes smoothly: never faster than the model's turn rate", arguments: [1.0, 0.2])
    func smoothHeading(rate: Double) {
        let model = MovementModel()
        var generator = SplitMix64(seed: 5)
        var vehicle = model.spawn(in: small, using: &generator)
        var turned = 0.0
        for _ in 0..<Int(1200 * rate) {
            let next = model.advance(vehicle, by: 1 / rate, in: small, using: &generator)
            let turn = abs(GeoMath.turn(from: vehicle.heading, to: next.heading))
            #expect(turn <= model.maxTurnRate / rate + 1e-9)
            turned += turn
            vehicle = next
        }
        // It does turn (the small area forces it round), just not abruptly.
        #expect(turned > 360)
    }

    @Test("vehicles slow for sharp turns and stop at some waypoints")
    func stops() {
        let model = MovementModel()
        var generator = SplitMix64(seed: 99)
        var vehicle = model.spawn(in: .berlin, using: &generator)
        var stopped = 0
        var previousSpeed = vehicle.speed
        for _ in 0..<3600 {
            vehicle = model.advance(vehicle, by: 1, in: .berlin, using: &generator)
            if vehicle.speed == 0 { stopped += 1 }
            // Acceleration is bounded; braking too, except the final halt at a stop.
            if vehicle.speed > 0 { #expect(vehicle.speed - previousSpeed <= model.acceleration + 1e-9) }
            previousSpeed = vehicle.speed
        }
        #expect(stopped > 0)
    }

    @Test("the schedule spreads reports evenly and ends at the duration")
    func schedule() {
        let schedule = PublishSchedule(deviceCount: 4, rate: 2, duration: 3)
        #expect(schedule.totalReports == 24)
        #expect(schedule.interval == 0.5)
        #expect(schedule.dueCount(at: 0) == 1)
        #expect(schedule.dueCount(at: 0.5) == 5)
        #expect(schedule.dueCount(at: 100) == 24)
        #expect((0..<8).map(schedule.device(of:)) == [0, 1, 2, 3, 0, 1, 2, 3])
        #expect((0..<5).map(schedule.offsetMilliseconds(of:)) == [0, 125, 250, 375, 500])
        #expect(schedule.isFirst(3) && !schedule.isFirst(4))
        #expect(PublishSchedule(deviceCount: 3, rate: 1, duration: nil).totalReports == nil)
        #expect(PublishSchedule(deviceCount: 3, rate: 1, duration: 0.5).totalReports == 2)
    }

    @Test("geometry: distances, bearings and destinations agree")
    func geometry() {
        let berlin = GeoPoint(lat: 52.520008, lon: 13.404954)
        let munich = GeoPoint(lat: 48.137154, lon: 11.576124)
        #expect(abs(GeoMath.distance(berlin, munich) - 504_000) < 2_000)
        let bearing = GeoMath.bearing(from: berlin, to: munich)
        #expect((190...200).contains(bearing))
        let there = GeoMath.destination(from: berlin, bearing: bearing, distance: GeoMath.distance(berlin, munich))
        #expect(GeoMath.distance(there, munich) < 1)
        #expect(GeoMath.turn(from: 350, to: 10) == 20)
        #expect(GeoMath.turn(from: 10, to: 350) == -20)
        #expect(GeoMath.normalized(-90) == 270 && GeoMath.normalized(720) == 0)
    }
}
