/// A position on the earth, in degrees.
struct GeoPoint: Sendable, Equatable {
    /// Latitude, -90 to 90.
    var lat: Double
    /// Longitude, -180 to 180.
    var lon: Double
}
