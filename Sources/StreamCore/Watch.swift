/// What a subscription resolved its target to: devices, or a checked area showing
/// only the devices its rights allow.
enum Watch: Sendable {
    case devices([String])
    case area(GeoArea, DeviceRights)
}
