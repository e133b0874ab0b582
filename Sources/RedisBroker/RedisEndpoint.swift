/// Where the Redis server is, from a `redis://[[user]:password@]host[:port][/db]` URL.
public struct RedisEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// The host name or address.
    public var host: String
    /// The TCP port (6379 unless told).
    public var port: Int
    /// The database number for keys (`SELECT`); channels are shared by all databases.
    public var database: Int
    /// The ACL user, if any.
    public var user: String?
    /// The password, if any.
    public var password: String?

    /// Parses `url`; the error says what is wrong with it.
    public init(url: String) throws(RedisEndpointError) {
        let scheme = "redis://"
        guard url.hasPrefix(scheme) else { throw RedisEndpointError("must start with redis:// (got '\(url)')") }
        var rest = Substring(url.dropFirst(scheme.count))
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                user = credentials[..<colon].isEmpty ? nil : String(credentials[..<colon])
                password = String(credentials[credentials.index(after: colon)...])
            } else {
                password = String(credentials)
            }
        }
        database = 0
        if let slash = rest.firstIndex(of: "/") {
            let path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
            if !path.isEmpty {
                guard let number = Int(path), number >= 0 else {
                    throw RedisEndpointError("database must be a number ≥ 0 (got '\(path)')")
                }
                database = number
            }
        }
        port = 6379
        if let colon = rest.lastIndex(of: ":") {
            guard let number = Int(rest[rest.index(after: colon)...]), (1...65535).contains(number) else {
                throw RedisEndpointError("port must be 1…65535 (got '\(rest[rest.index(after: colon)...])')")
            }
            port = number
            rest = rest[..<colon]
        }
        guard !rest.isEmpty else { throw RedisEndpointError("has no host (got '\(url)')") }
        host = String(rest)
    }

    /// The URL with the password masked, for logs and `--print-config`.
    public var description: String {
        let credentials = password == nil ? "" : "\(user ?? ""):***@"
        return "redis://\(credentials)\(host):\(port)/\(database)"
    }
}

/// A Redis URL that cannot be used, and why.
public struct RedisEndpointError: Error, Equatable, CustomStringConvertible {
    /// What is wrong, in words.
    public var description: String

    init(_ description: String) { self.description = description }
}
