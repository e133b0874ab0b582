/// The body of `POST /v1/locations`: a JSON array of 1 to 1000 locations.
public enum LocationBatch: Sendable {
    /// Decodes the whole batch or nothing; the error names the first bad index, as in
    /// `[3].lat must be a number between -90 and 90`.
    public static func decode(_ bytes: some Collection<UInt8>) throws(ProtocolError) -> [Location] {
        try Location.decodeList(try JSONValue(parsing: bytes), name: "", op: nil)
    }
}
