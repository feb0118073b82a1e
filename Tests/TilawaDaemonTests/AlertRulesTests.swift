import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TilawaDaemon
import TilawaTestSupport
import Yams

/// The alert rules shipped in `ops/prometheus/` (issue 47) speak of what a daemon exports:
/// no rule on a metric `/metrics` never shows (a dead alert), every `tilawa status` check
/// that can go WARNING or CRITICAL has an alert, and every alert says what to do.
/// (`promtool check rules` and `promtool test rules` run in `make test`: `make test-rules`.)
@Suite("Alert rules and the dashboard: every metric they read is exported, every status check has its alert")
struct AlertRulesTests {
    static let rulesPath = packageRoot.appendingPathComponent("ops/prometheus/tilawa.rules.yml").path

    struct Rule {
        let alert: String?
        let expr: String
        let annotations: [String: String]
        var labels: [String: String] = [:]
        var duration = ""
    }

    static func rules() throws -> [Rule] {
        let text = try String(contentsOfFile: rulesPath, encoding: .utf8)
        let document = try #require(try Yams.load(yaml: text) as? [String: Any])
        let groups = try #require(document["groups"] as? [[String: Any]])
        return groups.flatMap { ($0["rules"] as? [[String: Any]]) ?? [] }.map { rule in
            Rule(alert: rule["alert"] as? String, expr: rule["expr"] as? String ?? "",
                 annotations: rule["annotations"] as? [String: String] ?? [:], labels: rule["labels"] as? [String: String] ?? [:],
                 duration: rule["for"] as? String ?? "")
        }
    }

    @Test("A daemon that took a recording and owes replies exports every metric the rules read; each status check is alerted on; each alert has a summary and a runbook naming a command")
    func rulesReadExportedMetrics() async throws {
        let rules = try Self.rules()
        #expect(rules.filter { $0.alert != nil }.count >= 12)
        for rule in rules where rule.alert != nil {
            let runbook = rule.annotations["runbook"] ?? ""
            #expect(!(rule.annotations["summary"] ?? "").isEmpty && runbook.contains("`"), "\(rule.alert ?? "") says what to do, with a command")
        }

        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let created = try await client.execute(uri: "/v1/students/S1001/weeks/12/submissions", method: .post,
                                                   headers: try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"]),
                                                   body: try TestDaemon.fixture("speech.opus"))
            #expect(created.status == .created)
            // A reply that fell due and was given: the turnaround's figures exist.
            let seed = StatusSeed(database: daemon.runtime.database)
            let now = TestDaemon.midSemester
            try seed.submission("due", student: "S1003", state: "feedback_ready", receivedAt: now - 100 * 3_600)
            try seed.feedback("f1", to: "due", coach: "C01", receivedAt: now - 60 * 3_600)
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            let exported = Set(metrics.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
                line.split(whereSeparator: { $0 == "{" || $0 == " " }).first.map(String.init)
            })
            let metricName = /tilawa_[a-z_]+/
            // Two families exist only once they count something: a webhook POST, a push; their
            // names are the code's own.
            let conditional = ["tilawa_webhook_deliveries_total": "\"webhook_deliveries\", unit: \"total\"",
                               "tilawa_push_sent_total": "\"push_sent\", unit: \"total\""]
            let sources = try ["Sources/TilawaDaemon/Notifications/TilawaMetrics+Webhook.swift", "Sources/TilawaDaemon/Application/TilawaMetrics.swift"]
                .map { try String(contentsOf: packageRoot.appendingPathComponent($0), encoding: .utf8) }.joined()
            for rule in rules {
                for match in rule.expr.matches(of: metricName) {
                    let name = String(match.output)
                    if let registered = conditional[name] {
                        #expect(sources.contains(registered), "\(rule.alert ?? "a recording rule") reads \(name), which nothing registers")
                    } else {
                        #expect(exported.contains(name), "\(rule.alert ?? "a recording rule") reads \(name), which /metrics does not show")
                    }
                }
            }
            // The dashboard's panels too (no dead panel).
            let dashboard = try String(contentsOf: packageRoot.appendingPathComponent("ops/grafana/tilawa-dashboard.json"), encoding: .utf8)
            let read = Set(dashboard.matches(of: metricName).map { String($0.output) })
            #expect(read.count >= 12, "\(read.sorted())")
            for name in read.sorted() {
                if let registered = conditional[name] {
                    #expect(sources.contains(registered), "the dashboard reads \(name), which nothing registers")
                } else {
                    #expect(exported.contains(name), "the dashboard reads \(name), which /metrics does not show")
                }
            }
            // Each check the daemon reports, by name, is in some alert's expression (the
            // daemon's own check is the scrape itself failing: TilawaDown on `up`).
            let checks = metrics.matches(of: /tilawa_status_check\{check="([a-z_]+)"\}/).map { String($0.output.1) }
            #expect(Set(checks).isSuperset(of: ["database", "disk_space", "feedback_overdue", "encode_jobs", "notifications", "backup"]), "\(checks)")
            let alerted = rules.filter { $0.alert != nil }.map(\.expr).joined(separator: "\n")
            for check in checks where check != "daemon" {
                #expect(alerted.contains("\"\(check)\"") || alerted.contains("|\(check)\"") || alerted.contains("\"\(check)|")
                            || alerted.contains("|\(check)|"), "no alert for the status check \(check)")
            }
            #expect(rules.contains { $0.alert == "TilawaDown" && $0.expr.contains("up{") })
        }
    }
}

@Suite("The status checks at /metrics: made at most once a minute")
struct StatusObservationThrottleTests {
    @Test("Due at the first scrape, not again within the minute, due after it (and after a clock stepped back)")
    func throttled() {
        let metrics = TilawaMetrics()
        let start = Date(timeIntervalSince1970: 1_795_359_600)
        #expect(metrics.statusObservationDue(now: start))
        #expect(!metrics.statusObservationDue(now: start.addingTimeInterval(15)))
        #expect(!metrics.statusObservationDue(now: start.addingTimeInterval(59)))
        #expect(metrics.statusObservationDue(now: start.addingTimeInterval(61)))
        #expect(metrics.statusObservationDue(now: start.addingTimeInterval(-3_600)), "a clock stepped back does not stall it")
    }
}
