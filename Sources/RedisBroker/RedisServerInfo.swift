/// Reads the text of `INFO server`.
enum RedisServerInfo {
    /// The `run_id` line's value: which Redis process answered (a new one after each
    /// restart or failover; 40 hex digits); nil if there is none, or it is not 1 to 64
    /// printable ASCII characters.
    static func runID(_ info: [UInt8]) -> String? {
        for line in info.split(separator: UInt8(ascii: "\n")) where line.starts(with: "run_id:".utf8) {
            let value = line.dropFirst("run_id:".utf8.count).filter { $0 != UInt8(ascii: "\r") }
            guard !value.isEmpty, value.count <= 64, value.allSatisfy({ (33...126).contains($0) }) else { return nil }
            return String(decoding: value, as: UTF8.self)
        }
        return nil
    }
}
