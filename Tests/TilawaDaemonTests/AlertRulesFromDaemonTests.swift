import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TilawaDaemon
import TilawaTestSupport

/// The alert rules against what a real daemon exports under a scripted failure (issue 47,
/// item 1): a daemon owing an overdue reply, with a failed encode job and coach files the
/// drop folder rejected, is scraped; its status series, held for three hours, are handed to
/// `promtool test rules`, which must fire exactly the alerts whose checks the daemon reports
/// failing (labels and rendered annotations alike) and none of the others.
@Suite("Alert rules on a failing daemon's own /metrics: promtool fires what the daemon reports, nothing else", .heavy)
struct AlertRulesFromDaemonTests {
    static let promtool = "/usr/bin/promtool"

    @Test("An overdue reply, a failed encode job and rejected coach files fire their alerts through promtool; the healthy checks' stay quiet")
    func scriptedFailure() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.promtool), "promtool is missing: `make deps-rules` installs Debian's prometheus")
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let seed = StatusSeed(database: daemon.runtime.database)
        let now = TestDaemon.midSemester
        try seed.submission("late", student: "S1003", state: "awaiting_feedback", receivedAt: now - 100 * 3_600)
        try seed.job(state: "failed", createdAt: now - 5 * 3_600)
        try seed.dropFile(coach: "C01", outcome: "rejected", at: now - 2 * 3_600)
        let metrics = try await daemon.application().live { client in
            String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
        }
        // The status series as the daemon exported them, by check.
        var checks: [String: Double] = [:]
        for match in metrics.matches(of: /tilawa_status_check\{check="([a-z_]+)"\} ([0-9.]+)/) {
            checks[String(match.output.1)] = Double(match.output.2)
        }
        for failing in ["feedback_overdue", "encode_jobs", "dropbox_rejections"] {
            #expect(checks[failing] ?? 0 >= 1, "the scripted failure shows in /metrics as \(failing): \(checks)")
        }
        let instance = "node-1:8080"
        var series = ["      - series: 'up{job=\"tilawa\", instance=\"\(instance)\"}'\n        values: '1x180'"]
        for (check, value) in checks.sorted(by: { $0.key < $1.key }) {
            series.append("      - series: 'tilawa_status_check{check=\"\(check)\", job=\"tilawa\", instance=\"\(instance)\"}'\n        values: '\(Self.number(value))x180'")
        }
        // Every alert on one status check, with what it must do at 2 h 30 min (past every `for`
        // of theirs): fire, with its labels and its annotations rendered, or stay quiet.
        var expectations: [String] = []
        var firing: Set<String> = []
        for rule in try AlertRulesTests.rules() {
            guard let alert = rule.alert, let condition = rule.expr.wholeMatch(of: /tilawa_status_check\{check=~?"([a-z_|]+)"\} (>=|==) ([0-9]+)/) else { continue }
            let names = condition.output.1.split(separator: "|").map(String.init)
            let threshold = Double(condition.output.3) ?? 0
            let fires = names.compactMap { name in checks[name].map { (name, $0) } }.filter { _, value in
                condition.output.2 == "==" ? value == threshold : value >= threshold
            }
            var entry = "      - eval_time: 150m\n        alertname: \(alert)\n        exp_alerts:"
            if fires.isEmpty { entry += " []" }
            for (check, _) in fires {
                firing.insert(alert)
                var labels = rule.labels
                labels["check"] = check
                labels["job"] = "tilawa"
                labels["instance"] = instance
                entry += "\n          - exp_labels: {\(labels.sorted { $0.key < $1.key }.map { "\($0.key): \(Self.quoted($0.value))" }.joined(separator: ", "))}"
                entry += "\n            exp_annotations: {\(rule.annotations.sorted { $0.key < $1.key }.map { "\($0.key): \(Self.quoted(Self.rendered($0.value, labels)))" }.joined(separator: ", "))}"
            }
            expectations.append(entry)
        }
        #expect(firing.isSuperset(of: ["TilawaFeedbackOverdue", "TilawaEncodeJobsFailing", "TilawaDropboxRejections"]), "\(firing.sorted())")
        #expect(expectations.count >= 10, "every alert on a status check is tried")
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let test = """
            rule_files:
              - \(AlertRulesTests.rulesPath)
            evaluation_interval: 1m
            tests:
              - interval: 1m
                input_series:
            \(series.joined(separator: "\n"))
                alert_rule_test:
            \(expectations.joined(separator: "\n"))
                  - eval_time: 150m
                    alertname: TilawaDown
                    exp_alerts: []

            """
        try test.write(toFile: scratch.path("daemon.test.yml"), atomically: true, encoding: .utf8)
        let result = try runProcessBlocking(Self.promtool, ["test", "rules", scratch.path("daemon.test.yml")], timeout: TestTime.hangInterval)
        #expect(result.status == 0, "promtool test rules:\n\(result.stdout)\(result.stderr)\n\(test)")
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// A YAML double-quoted scalar.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// An annotation as Prometheus renders it for `labels` (the rules' templates use only `$labels`).
    static func rendered(_ template: String, _ labels: [String: String]) -> String {
        var text = template
        for (name, value) in labels { text = text.replacingOccurrences(of: "{{ $labels.\(name) }}", with: value) }
        return text
    }
}
