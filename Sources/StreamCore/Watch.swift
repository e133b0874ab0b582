/// What a subscription resolved its target to: devices, or a checked area.
enum Watch: Sendable {
    case devices([String])
    case area(GeoArea)
}
