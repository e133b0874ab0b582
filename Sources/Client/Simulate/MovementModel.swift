import Foundation

/// How simulated vehicles move: legs between random waypoints inside the area, driven with
/// limited acceleration, braking and turn rate, slowing for sharp turns and sometimes
/// stopping at a waypoint for a while.
///
/// Heading changes smoothly: the turn rate is capped by a maximum and by lateral
/// acceleration (tighter at speed), so a vehicle near the edge turns back in an arc. New
/// waypoints are picked from the area's interior, and a position is clamped into the area,
/// so a vehicle never leaves it. Every function is pure: the randomness comes from the
/// generator passed in.
struct MovementModel: Sendable, Equatable {
    /// Cruising speeds, m/s (18 to 58 km/h).
    var cruiseSpeeds: ClosedRange<Double> = 5...16
    /// Speeding up, m/s².
    var acceleration = 1.5
    /// Slowing down, m/s².
    var braking = 3.0
    /// The fastest turn, degrees per second (at low speed).
    var maxTurnRate = 30.0
    /// The sideways acceleration that caps the turn rate at speed, m/s².
    var lateralAcceleration = 2.5
    /// How far the next waypoint lies, metres.
    var legLengths: ClosedRange<Double> = 250...2500
    /// How likely a waypoint is a stop.
    var stopProbability = 0.3
    /// How long a stop lasts, seconds.
    var dwellTimes: ClosedRange<Double> = 4...30
    /// How close counts as arrived, metres.
    var arrivalRadius = 15.0
    /// The fraction of the area kept free of new waypoints along each edge.
    var edgeMargin = 0.05
    /// The integration step, seconds: motion is smooth whatever the report rate.
    var step = 0.25

    /// The fastest a vehicle ever goes, m/s.
    var maxSpeed: Double { cruiseSpeeds.upperBound }

    /// A vehicle at a random place in `area`, heading somewhere, ready to drive.
    func spawn(in area: SimulationArea, using generator: inout some RandomNumberGenerator) -> VehicleState {
        let position = area.randomPoint(using: &generator)
        var vehicle = VehicleState(
            position: position, heading: Double.random(in: 0..<360, using: &generator),
            speed: 0, waypoint: position, cruiseSpeed: cruiseSpeeds.lowerBound, stopsAtWaypoint: false,
            dwellRemaining: 0)
        startLeg(&vehicle, in: area, using: &generator)
        vehicle.heading = GeoMath.bearing(from: vehicle.position, to: vehicle.waypoint)
        vehicle.speed = Double.random(in: 0...vehicle.cruiseSpeed, using: &generator)
        return vehicle
    }

    /// `vehicle` after `seconds` more of driving in `area`.
    func advance(
        _ vehicle: VehicleState, by seconds: Double, in area: SimulationArea,
        using generator: inout some RandomNumberGenerator
    ) -> VehicleState {
        var state = vehicle
        var remaining = max(0, seconds)
        while remaining > 1e-9 {
            let dt = min(step, remaining)
            tick(&state, dt, area, &generator)
            remaining -= dt
        }
        return state
    }

    /// The turn rate allowed at `speed`, degrees per second.
    func turnRate(at speed: Double) -> Double {
        guard speed > 0.1 else { return maxTurnRate }
        return min(maxTurnRate, GeoMath.degrees(lateralAcceleration / speed))
    }

    private func tick(
        _ state: inout VehicleState, _ dt: Double, _ area: SimulationArea,
        _ generator: inout some RandomNumberGenerator
    ) {
        if state.dwellRemaining > 0 {
            state.speed = 0
            state.dwellRemaining = max(0, state.dwellRemaining - dt)
            if state.dwellRemaining == 0 { startLeg(&state, in: area, using: &generator) }
            return
        }
        let distance = GeoMath.distance(state.position, state.waypoint)
        let desired = GeoMath.bearing(from: state.position, to: state.waypoint)
        let error = GeoMath.turn(from: state.heading, to: desired)
        let turnLimit = turnRate(at: state.speed) * dt
        state.heading = GeoMath.normalized(state.heading + min(max(error, -turnLimit), turnLimit))

        // Slow for the turn still to make, and brake towards a stop.
        var target = state.cruiseSpeed * max(0.3, cos(GeoMath.radians(abs(error)) / 2))
        if state.stopsAtWaypoint {
            target = min(target, sqrt(2 * braking * 0.8 * max(0, distance - arrivalRadius / 2)))
        }
        let oldSpeed = state.speed
        state.speed = min(max(target, oldSpeed - braking * dt), oldSpeed + acceleration * dt)
        state.speed = min(max(state.speed, 0), maxSpeed)

        let travelled = (oldSpeed + state.speed) / 2 * dt
        state.position = area.clamped(
            GeoMath.destination(from: state.position, bearing: state.heading, distance: travelled))

        // Arrived, or the waypoint is inside the turning circle behind us: the leg is done.
        let left = GeoMath.distance(state.position, state.waypoint)
        let turningRadius = state.speed / max(GeoMath.radians(turnRate(at: state.speed)), 1e-6)
        let behind = abs(
            GeoMath.turn(from: state.heading, to: GeoMath.bearing(from: state.position, to: state.waypoint)))
        if left <= arrivalRadius || (left < 2 * turningRadius && behind > 90) {
            if state.stopsAtWaypoint {
                state.speed = 0
                state.dwellRemaining = Double.random(in: dwellTimes, using: &generator)
            } else {
                startLeg(&state, in: area, using: &generator)
            }
        }
    }

    /// Picks the next waypoint: mostly ahead, within the interior; back towards the middle
    /// when ahead would leave it.
    private func startLeg(
        _ state: inout VehicleState, in area: SimulationArea, using generator: inout some RandomNumberGenerator
    ) {
        let interior = area.inset(by: edgeMargin)
        let swerve = (Double.random(in: -1...1, using: &generator) + Double.random(in: -1...1, using: &generator)) * 60
        let length = Double.random(in: legLengths, using: &generator)
        let ahead = GeoMath.destination(from: state.position, bearing: state.heading + swerve, distance: length)
        state.waypoint = interior.contains(ahead) ? ahead : interior.randomPoint(using: &generator)
        state.cruiseSpeed = Double.random(in: cruiseSpeeds, using: &generator)
        state.stopsAtWaypoint = Double.random(in: 0..<1, using: &generator) < stopProbability
        state.dwellRemaining = 0
    }
}
