/// The environment variables under an option prefix that no option reads: each one is a
/// typo or a leftover (`LOCSTREAM_PROT=9000` is otherwise ignored without a word). The
/// variables Kubernetes injects for services (service links) share the prefix when a
/// service's name starts with it, and are not reported.
public enum EnvironmentCheck {
    /// A variable no option reads, and the option variable it most likely meant.
    public struct Unknown: Sendable, Equatable, CustomStringConvertible {
        /// The variable's name.
        public var name: String
        /// The known variable nearest to it, if any is near.
        public var suggestion: String?

        /// `LOCSTREAM_PROT is not an option (ignored); did you mean LOCSTREAM_PORT?`
        public var description: String {
            "\(name) is not an option (ignored)" + Suggestion.hint(suggestion)
        }
    }

    /// The variables of `environment` that start with `prefix` but name none of `specs`,
    /// leaving out Kubernetes service links and any under `otherPrefixes` (another program's
    /// options, e.g. `LOCSTREAM_CLIENT_`), sorted by name.
    public static func unknownVariables(
        in environment: [String: String], prefix: String, specs: [OptionSpec], otherPrefixes: [String] = []
    ) -> [Unknown] {
        let known = specs.map { $0.environmentName(prefix: prefix) }
        return environment.filter { name, value in
            name.hasPrefix(prefix) && !known.contains(name) && !otherPrefixes.contains { name.hasPrefix($0) }
                && !isServiceLink(name: name, value: value)
        }
        .keys.sorted().map { Unknown(name: $0, suggestion: Suggestion.closest(to: $0, among: known)) }
    }

    /// Whether `name=value` is one of the variables Kubernetes sets for a service (for a
    /// service `locstream-redis`: `LOCSTREAM_REDIS_SERVICE_HOST`, `…_SERVICE_PORT`,
    /// `…_SERVICE_PORT_<NAME>`, `LOCSTREAM_REDIS_PORT=tcp://…`, `…_PORT_6379_TCP`,
    /// `…_PORT_6379_TCP_PROTO`, `…_PORT_6379_TCP_PORT` and `…_PORT_6379_TCP_ADDR`).
    public static func isServiceLink(name: String, value: String) -> Bool {
        if name.hasSuffix("_SERVICE_HOST") || name.hasSuffix("_SERVICE_PORT") || name.contains("_SERVICE_PORT_") {
            return true
        }
        if name.hasSuffix("_PORT"), isServiceAddress(value) { return true }
        let parts = name.split(separator: "_").map(String.init)
        return parts.indices.contains { index in
            guard parts[index] == "PORT", index + 2 < parts.count, parts[index + 1].allSatisfy(\.isNumber),
                ["TCP", "UDP", "SCTP"].contains(parts[index + 2])
            else { return false }
            let rest = parts[(index + 3)...]
            return rest.isEmpty || (rest.count == 1 && ["PROTO", "PORT", "ADDR"].contains(rest.first ?? ""))
        }
    }

    /// Whether `value` is a service address as Kubernetes writes it: `tcp://10.0.0.1:8080`.
    public static func isServiceAddress(_ value: String) -> Bool {
        ["tcp://", "udp://", "sctp://"].contains { value.hasPrefix($0) }
    }
}
