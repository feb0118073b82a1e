import Foundation

/// The human form of a `StatusReport`: sections of aligned `label  value` rows, then the
/// checks. ANSI colour only when asked (the command asks when stdout is a terminal and
/// `NO_COLOR` is unset).
public struct StatusTextRenderer: Sendable {
    /// Whether to colour state names and headings.
    public var colour: Bool

    /// A renderer.
    public init(colour: Bool) {
        self.colour = colour
    }

    private enum Line {
        case heading(String, columns: [String] = [])
        case row(String, [String])
        case blank
    }

    private static let numberWidth = 9

    /// The whole text, ending in a newline.
    public func render(_ report: StatusReport) -> String {
        var lines: [Line] = []
        func row(_ label: String, _ value: String) { lines.append(.row(label, [value])) }
        func ago(_ seconds: Int?) -> String { seconds.map { StatusFormat.age($0) } ?? "–" }

        lines.append(.heading("DAEMON"))
        let daemon = report.daemon
        if daemon.up && daemon.ready {
            row("state", "up " + ago(daemon.uptimeSeconds) + (daemon.pid.map { ", pid \($0)" } ?? ""))
            if let started = daemon.startedAt { row("started", StatusFormat.instant(started)) }
            if let failing = daemon.failingChecks, !failing.isEmpty { row("degraded", failing.map(\.check).joined(separator: ", ")) }
        } else {
            row("state", (daemon.up ? "not ready: " : "down: ") + (daemon.error ?? "no answer"))
        }
        if let url = daemon.url { row("asked", url) }

        lines.append(.heading("UPLOADS", columns: ["last 24 h", "last 7 d"]))
        let uploads = report.uploads
        lines.append(.row("accepted", ["\(uploads.last24h.accepted)", "\(uploads.last7d.accepted)"]))
        lines.append(.row("rejected", ["\(uploads.last24h.rejected)", "\(uploads.last7d.rejected)"]))
        for code in uploads.last7d.rejectedByReason.keys.sorted() {
            lines.append(.row("  " + code, ["\(uploads.last24h.rejectedByReason[code] ?? 0)", "\(uploads.last7d.rejectedByReason[code] ?? 0)"]))
        }

        lines.append(.heading("FEEDBACK"))
        row("awaiting", "\(report.awaitingFeedback.count)" + (report.awaitingFeedback.oldestAgeSeconds.map { ", oldest \(StatusFormat.age($0))" } ?? ""))
        let due = StatusFormat.hours(report.overdue.dueHours)
        row("overdue (> \(due))", "\(report.overdue.count)")
        for (coach, count) in report.overdueByCoach.sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) }) {
            row("  coach " + coach, "\(count)")
        }

        row("questions", "\(report.questions.open) open, \(report.questions.overdue) overdue")
        let turnaround = report.replyTurnaround
        func inTime(_ figure: (due: Int, inTime: Int, share: Double?)) -> String {
            figure.share.map { "\(Int(($0 * 100).rounded())) % (\(figure.inTime) of \(figure.due))" } ?? "none due"
        }
        row("in time (\(turnaround.windowDays) days)", inTime((turnaround.due, turnaround.inTime, turnaround.share)))
        for (coach, figure) in turnaround.byCoach.sorted(by: { $0.key < $1.key }) {
            row("  coach " + coach, inTime((figure.due, figure.inTime, figure.share)))
        }

        lines.append(.heading("PROGRAMME"))
        row("awaiting placement", "\(report.enrolments.awaitingPlacement)")
        row("graduated", "\(report.enrolments.graduated)")
        let erasures = report.erasureRequests
        var erasureLine = "\(erasures.pending) pending"
        if let due = erasures.earliestDueAt { erasureLine += ", the earliest due \(StatusFormat.instant(due))" }
        if erasures.late > 0 { erasureLine += ", \(erasures.late) late" }
        row("erasure requests", erasureLine)

        lines.append(.heading("ENCODE QUEUE"))
        let queue = report.encodeQueue
        row("pending", "\(queue.queued) queued, \(queue.running) running" + (queue.oldestAgeSeconds.map { ", oldest \(StatusFormat.age($0))" } ?? ""))
        row("failed", "\(queue.failed)")

        lines.append(.heading("NODES"))
        let cluster = report.cluster
        if cluster.nodes.isEmpty { row(cluster.engine, "none seen in the last hour") }
        for node in cluster.nodes {
            let seen = node.live ? "live" : "not seen for \(StatusFormat.age(node.seenAgeSeconds))"
            row(node.id, "\(seen), \(StatusFormat.count(node.jobsRunning, "job")) running, \(StatusFormat.count(node.uploadsHeld, "upload")) receiving")
        }
        if cluster.expiredJobLeases > 0 { row("expired leases", "\(StatusFormat.count(cluster.expiredJobLeases, "job")) being given back") }

        lines.append(.heading("DROP FOLDER"))
        let dropbox = report.dropbox
        row("folder", dropbox.path + (dropbox.exists ? "" : " (not created yet)"))
        row("waiting", StatusFormat.count(dropbox.backlog, "file") + (dropbox.oldestAgeSeconds.map { ", oldest \(StatusFormat.age($0))" } ?? ""))
        row("rejected", "\(StatusFormat.count(dropbox.rejected, "file")) in rejected/, \(dropbox.rejectedLast24h) in the last 24 h")
        for suspension in dropbox.suspended {
            row("suspended", "\(suspension.folder): \(suspension.reason)")
        }

        lines.append(.heading("NOTIFICATIONS"))
        let outbox = report.notifications
        row("undelivered", "\(outbox.count)" + (outbox.oldestAgeSeconds.map { ", oldest \(StatusFormat.age($0))" } ?? ""))
        row("webhook", outbox.webhookConfigured ? "configured" : "not configured (events kept for the feed)")

        lines.append(.heading("STORAGE"))
        let disk = report.disk
        if let free = disk.freeBytes, let total = disk.totalBytes, let percent = disk.freePercent {
            row("disk free", "\(StatusFormat.bytes(free)) of \(StatusFormat.bytes(total)) (\(StatusFormat.percent(percent))) at \(disk.path)")
        } else {
            row("disk free", "unknown (\(disk.path))")
        }
        row("artifacts", StatusFormat.bytes(disk.artifactBytes) + (disk.artifactsURL == "file:" ? "" : " in \(disk.artifactsURL)"))
        row("database", report.database.exists
            ? "\(StatusFormat.bytes(report.database.sizeBytes)) (WAL \(StatusFormat.bytes(report.database.walBytes)))"
            : "none yet")
        let missing = report.missingArtifacts
        row("missing files", "\(missing.count) of \(StatusFormat.count(missing.checkedFiles, "file")) checked (last 7 d)")
        for example in missing.examples { row("", example) }
        if let sweep = missing.lastFullSweep {
            row("full sweep", "\(sweep.count) missing at \(StatusFormat.instant(sweep.sweptAt))")
        }

        return header(report) + table(lines) + "\n" + checks(report)
    }

    private func header(_ report: StatusReport) -> String {
        "tilawa status: \(paint(report.state))   \(StatusFormat.instant(report.generatedAt))\nstate dir \(report.stateDir)\n\n"
    }

    private func table(_ lines: [Line]) -> String {
        let width = lines.reduce(0) { widest, line in
            if case let .row(label, _) = line { return max(widest, label.count) }
            return widest
        }
        func pad(_ text: String, _ count: Int) -> String { text.padding(toLength: max(count, text.count), withPad: " ", startingAt: 0) }
        func right(_ text: String) -> String { String(repeating: " ", count: max(0, Self.numberWidth - text.count)) + text }
        var out = ""
        for line in lines {
            switch line {
            case let .heading(title, columns):
                out += bold(columns.isEmpty ? title : pad(title, width + 2) + columns.map(right).joined(separator: " ")) + "\n"
            case let .row(label, values) where values.count > 1:
                out += "  " + pad(label, width) + values.map(right).joined(separator: " ") + "\n"
            case let .row(label, values):
                out += "  " + pad(label, width) + "  " + (values.first ?? "") + "\n"
            case .blank:
                out += "\n"
            }
        }
        return out
    }

    private func checks(_ report: StatusReport) -> String {
        let nameWidth = report.checks.map(\.name.count).max() ?? 0
        var out = bold("CHECKS") + "\n"
        for check in report.checks {
            let label = check.state.label
            out += "  " + paint(check.state) + String(repeating: " ", count: max(1, 10 - label.count))
                + check.name.padding(toLength: nameWidth + 2, withPad: " ", startingAt: 0) + check.message + "\n"
        }
        return out
    }

    private func paint(_ state: StatusState) -> String {
        guard colour else { return state.label }
        let code = switch state {
        case .ok: "32"
        case .warning: "33"
        case .critical: "1;31"
        case .unknown: "35"
        }
        return "\u{1B}[\(code)m\(state.label)\u{1B}[0m"
    }

    private func bold(_ text: String) -> String {
        colour ? "\u{1B}[1m\(text)\u{1B}[0m" : text
    }
}
