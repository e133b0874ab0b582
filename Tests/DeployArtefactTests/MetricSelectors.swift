import Foundation
import TestSupport

/// The metrics a PromQL expression selects (`name` or `name{label="v",label=~"re"}`, for
/// names under `locstream_` and `process_`), and the series a live server exposes, so that
/// a dashboard or an alert can be checked against what the server really serves.
struct MetricSelector: Hashable, CustomStringConvertible {
    /// The metric name, as queried (a histogram's `_bucket` series included).
    var name: String
    /// `label="value"` matchers.
    var equal: [String: String] = [:]
    /// `label=~"regex"` matchers, except those on a Grafana variable (`$instance`).
    var matching: [String: String] = [:]

    var description: String {
        let matchers = equal.map { "\($0.key)=\"\($0.value)\"" } + matching.map { "\($0.key)=~\"\($0.value)\"" }
        return matchers.isEmpty ? name : "\(name){\(matchers.sorted().joined(separator: ","))}"
    }

    /// Every selector in `expression`.
    static func all(in expression: String) -> [MetricSelector] {
        expression.matches(of: /\b((?:locstream|process)_[a-z_]+)(\{[^}]*\})?/).map { match in
            var selector = MetricSelector(name: String(match.output.1))
            for matcher in (match.output.2 ?? "").matches(of: /([a-z_]+)\s*(=~|=)\s*"([^"]*)"/) {
                let (label, value) = (String(matcher.output.1), String(matcher.output.3))
                if matcher.output.2 == "=" {
                    selector.equal[label] = value
                } else if !value.hasPrefix("$") {
                    selector.matching[label] = value
                }
            }
            return selector
        }
    }
}

/// The series of one `/metrics` answer: each sample's name and labels.
struct Exposition {
    var series: [(name: String, labels: [String: String])] = []

    /// The exposition of the server on `port`.
    init(port: Int) throws {
        let body = try RawHTTPResponse.fetch(port: port, path: "/metrics").body
        for line in body.split(separator: "\n") where !line.hasPrefix("#") {
            guard let match = line.prefixMatch(of: /([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})?\s/) else { continue }
            var labels: [String: String] = [:]
            for pair in (match.output.2 ?? "").matches(of: /([a-zA-Z_]+)="([^"]*)"/) {
                labels[String(pair.output.1)] = String(pair.output.2)
            }
            series.append((String(match.output.1), labels))
        }
    }

    /// Whether some series answers `selector`.
    func serves(_ selector: MetricSelector) -> Bool {
        series.contains { name, labels in
            name == selector.name && selector.equal.allSatisfy { labels[$0.key] == $0.value }
                && selector.matching.allSatisfy { label, pattern in
                    (try? Regex("^(?:\(pattern))$")).map { (labels[label] ?? "").wholeMatch(of: $0) != nil } ?? false
                }
        }
    }

    /// The expositions of two live nodes: one on the embedded broker with its store, one on
    /// Redis (a `RedisHarness`), between them every metric a node can serve. Metrics appear
    /// once registered, so fresh nodes suffice.
    static func ofBothBrokers() async throws -> [Exposition] {
        let data = try TemporaryDirectory(prefix: "locstream-metrics")
        let local = try await ServerHarness([
            "--data-dir", data.url.path, "--auth", "jwt", "--jwt-secret", TestTokens.secret,
        ])
        let redis = try await RedisHarness()
        let shared = try await ServerHarness(redis.serverArguments)
        return [try Exposition(port: local.port), try Exposition(port: shared.port)]
    }
}
