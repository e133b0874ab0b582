import Foundation
import LocstreamProtocol

/// The simulated devices of one run: their ids, their vehicles, and one random generator
/// each, so every device's path depends only on the seed and its index.
struct Fleet: Sendable {
    /// The device ids, `prefix` + 1…N.
    let ids: [String]
    /// The area the vehicles stay in.
    let area: SimulationArea
    /// How the vehicles move.
    let model: MovementModel
    /// The vehicles, by index.
    private(set) var vehicles: [VehicleState]
    private var generators: [SplitMix64]

    /// `count` vehicles spread over `area`, named `prefix1`, `prefix2`, …
    init(count: Int, prefix: String, seed: UInt64, area: SimulationArea, model: MovementModel = MovementModel()) {
        self.area = area
        self.model = model
        ids = (0..<count).map { "\(prefix)\($0 + 1)" }
        var generators = (0..<count).map { SplitMix64(seed: seed, stream: $0) }
        vehicles = generators.indices.map { model.spawn(in: area, using: &generators[$0]) }
        self.generators = generators
    }

    /// Moves vehicle `index` on by `seconds`.
    mutating func advance(_ index: Int, by seconds: Double) {
        vehicles[index] = model.advance(vehicles[index], by: seconds, in: area, using: &generators[index])
    }

    /// Vehicle `index`'s report at device time `ts`: the position to 1e-7 degrees (about
    /// 1 cm), speed and heading to a tenth, and a GPS accuracy of 3 to 8 m.
    mutating func report(_ index: Int, ts: Int64) -> Location {
        let vehicle = vehicles[index]
        let position = area.clamped(
            GeoPoint(lat: Self.round(vehicle.position.lat, 1e7), lon: Self.round(vehicle.position.lon, 1e7)))
        let accuracy = Double.random(in: 3...8, using: &generators[index])
        return Location(
            device: ids[index], lat: position.lat, lon: position.lon, ts: ts,
            speed: Self.round(vehicle.speed, 10), heading: GeoMath.normalized(Self.round(vehicle.heading, 10)),
            acc: Self.round(accuracy, 10))
    }

    private static func round(_ value: Double, _ scale: Double) -> Double { (value * scale).rounded() / scale }
}
