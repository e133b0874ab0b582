/// Where one simulated vehicle is and what it is doing: driving a leg of its route towards
/// `waypoint`, or standing at a stop.
struct VehicleState: Sendable, Equatable {
    /// The current position.
    var position: GeoPoint
    /// The direction of travel, degrees clockwise from north, `0..<360`.
    var heading: Double
    /// The current speed, in m/s.
    var speed: Double
    /// The end of the current leg.
    var waypoint: GeoPoint
    /// The speed this leg is driven at, in m/s, when the road is straight.
    var cruiseSpeed: Double
    /// Whether the vehicle stops at `waypoint` (a delivery, a traffic light).
    var stopsAtWaypoint: Bool
    /// Seconds left standing at a stop; 0 while driving.
    var dwellRemaining: Double
}
