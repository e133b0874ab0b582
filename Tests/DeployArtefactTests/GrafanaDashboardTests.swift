import Foundation
import TestSupport
import Testing

// MARK: - Grafana dashboard and Prometheus alerts: against a live node

extension DeployArtefactTests {
    /// The panels of deploy/grafana/locstream.json, rows left out.
    static func dashboardPanels() throws -> [[String: Any]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path("deploy/grafana/locstream.json")))
        let dashboard = object(try JSONSerialization.jsonObject(with: data))
        return array(dashboard["panels"]).map(object).filter { string($0["type"]) != "row" }
    }

    /// Every PromQL query of the dashboard: its panels' and its variables'.
    static func dashboardQueries() throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path("deploy/grafana/locstream.json")))
        let variables = array(object(object(try JSONSerialization.jsonObject(with: data))["templating"])["list"])
        let variableQueries = variables.compactMap { string(object(object($0)["query"])["query"]) }
        let panelQueries = try dashboardPanels().flatMap {
            array($0["targets"]).compactMap { string(object($0)["expr"]) }
        }
        return panelQueries + variableQueries
    }

    /// The expressions of deploy/prometheus/alerts.yml, by alert name.
    static func alertExpressions() throws -> [String: String] {
        let groups = array(object(try yaml(file: path("deploy/prometheus/alerts.yml")).first)["groups"])
        let rules = groups.flatMap { array(object($0)["rules"]).map(object) }
        return Dictionary(rules.compactMap { rule in string(rule["alert"]).map { ($0, string(rule["expr"]) ?? "") } }) {
            first, _ in first
        }
    }

    @Test(
        "every metric and label the dashboard and the alerts query is served by a live node (embedded broker or Redis)")
    func queriedMetricsExist() async throws {
        let expositions = try await Exposition.ofBothBrokers()
        let queries = try Self.dashboardQueries() + Self.alertExpressions().values
        let selectors = Set(queries.flatMap(MetricSelector.all))
        #expect(selectors.count >= 30, "\(selectors.count) selectors found")
        for selector in selectors {
            #expect(expositions.contains { $0.serves(selector) }, "no live node serves \(selector)")
        }
    }

    @Test(
        "the dashboard shows what an operator needs, every panel queries through the data-source variable, and promtool parses its queries"
    )
    func dashboardPanels() throws {
        let panels = try Self.dashboardPanels()
        let ids = panels.compactMap { Self.int($0["id"]) }
        #expect(ids.count == panels.count && Set(ids).count == ids.count, "every panel has its own id")
        for panel in panels {
            let title = Self.string(panel["title"]) ?? "?"
            let targets = Self.array(panel["targets"]).map(Self.object)
            #expect(!targets.isEmpty, "\(title) has no query")
            for source in [panel["datasource"]] + targets.map({ $0["datasource"] }) {
                #expect(Self.string(Self.object(source)["uid"]) == "${datasource}", "\(title) names its data source")
            }
        }
        let queried = Set(try Self.dashboardQueries().flatMap(MetricSelector.all).map(\.name))
        let needed = [
            "locstream_connections", "locstream_subscriptions", "locstream_publish_total",
            "locstream_frames_sent_total",
            "locstream_publish_to_send_seconds_bucket", "locstream_subscribe_to_ack_seconds_bucket",
            "locstream_frames_dropped_total",
            "locstream_slow_consumers_closed_total", "locstream_broker_up", "locstream_broker_errors_total",
            "process_cpu_seconds_total", "process_resident_memory_bytes", "locstream_store_commit_seconds_bucket",
        ]
        #expect(needed.filter { !queried.contains($0) } == [], "metrics the dashboard must show")

        // promtool parses PromQL in rule files: each query becomes a recording rule, with
        // Grafana's variables replaced by what they stand for.
        let rules = try Self.dashboardQueries().filter { !$0.hasPrefix("label_values(") }.enumerated().map {
            index, query in
            let promql = query.replacingOccurrences(of: "$__rate_interval", with: "1m")
                .replacingOccurrences(of: "$instance", with: ".*")
            return
                "      - record: dashboard:query_\(index)\n        expr: '\(promql.replacingOccurrences(of: "'", with: "''"))'"
        }
        let file = try TemporaryDirectory(prefix: "locstream-dashboard")
        let rulesFile = try file.file(
            "queries.yml", "groups:\n  - name: dashboard\n    rules:\n" + rules.joined(separator: "\n") + "\n")
        let promtool = try Self.tool("promtool", package: "prometheus (Debian)")
        let check = try Self.run(promtool, ["check", "rules", rulesFile])
        #expect(check.status == 0, "promtool check rules on the dashboard's queries: \(check.stdout)\(check.stderr)")
    }
}
