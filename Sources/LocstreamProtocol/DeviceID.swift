/// The rule for device ids: 1 to 128 characters of `[A-Za-z0-9._:-]`.
public enum DeviceID: Sendable {
    /// Whether `id` is a valid device id.
    public static func isValid(_ id: some StringProtocol) -> Bool {
        let utf8 = id.utf8
        return (1...ProtocolLimits.maxIdLength).contains(utf8.count) && utf8.allSatisfy(isAllowed)
    }

    /// The rule in words, for error messages.
    public static let rule = "1 to 128 characters of A-Z a-z 0-9 . _ : -"

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: ":"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }
}
