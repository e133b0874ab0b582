import Foundation
import TestSupport
import Testing

// MARK: - Prometheus alerts

extension DeployArtefactTests {
    @Test("promtool check rules accepts alerts.yml, and promtool test rules fires each alert in alerts.test.yml")
    func alertRules() throws {
        let promtool = try Self.tool("promtool", package: "prometheus (Debian)")
        let check = try Self.run(promtool, ["check", "rules", Self.path("deploy/prometheus/alerts.yml")])
        #expect(check.status == 0, "promtool check rules: \(check.stdout)\(check.stderr)")
        let test = try Self.run(promtool, ["test", "rules", Self.path("deploy/prometheus/alerts.test.yml")])
        #expect(test.status == 0, "promtool test rules: \(test.stdout)\(test.stderr)")

        let tests = Self.array(
            Self.object(try Self.yaml(file: Self.path("deploy/prometheus/alerts.test.yml")).first)["tests"])
        let cases = tests.flatMap { Self.array(Self.object($0)["alert_rule_test"]).map(Self.object) }
        let fired = Set(
            cases.filter { !Self.array($0["exp_alerts"]).isEmpty }.compactMap { Self.string($0["alertname"]) })
        let quiet = Set(
            cases.filter { Self.array($0["exp_alerts"]).isEmpty }.compactMap { Self.string($0["alertname"]) })
        let alerts = Set(try Self.alertExpressions().keys)
        #expect(alerts.count >= 10)
        #expect(alerts.subtracting(fired).sorted() == [], "alerts no unit test fires")
        #expect(alerts.subtracting(quiet).sorted() == [], "alerts no unit test holds back below the threshold")
    }

    @Test("each metric deploy/README.md says to alert on has a rule in alerts.yml, and the README points at both files")
    func alertsMatchTheReadme() throws {
        let readme = try Self.text("deploy/README.md")
        let table = readme.split(separator: "\n").drop { !$0.hasPrefix("| metric | alert when |") }.dropFirst(2)
            .prefix { $0.hasPrefix("|") }
        let named = table.flatMap { row in
            (row.split(separator: "|").first ?? "").matches(of: /`(locstream_[a-z_]+)/).map { String($0.output.1) }
        }
        #expect(named.count >= 10, "metrics in the README's alert table: \(named)")
        let expressions = try Self.alertExpressions().values.joined(separator: "\n")
        for metric in named {
            #expect(expressions.contains(metric), "no alert on \(metric)")
        }
        let files = ["prometheus/alerts.yml", "prometheus/alerts.test.yml", "grafana/locstream.json"]
        #expect(files.filter { !readme.contains("`\($0)`") } == [], "files deploy/README.md does not name")
    }
}
