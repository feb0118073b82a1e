import Foundation
import TilawaStore

extension StatusThresholds {
    /// Evaluates every check on a report whose sections are filled in (`checks` is ignored).
    ///
    /// Checks that need the database are left out when it could not be read: the `database`
    /// check then says UNKNOWN, and nothing pretends the backlog is empty.
    func checks(for report: StatusReport, stateDirectory: StatusAccess, database: StatusAccess) -> [StatusReport.Check] {
        typealias Check = StatusReport.Check
        var checks: [Check] = []

        switch stateDirectory {
        case .read: checks.append(Check(name: "state_dir", state: .ok, message: "\(report.stateDir) is readable"))
        case .absent: checks.append(Check(name: "state_dir", state: .ok, message: "\(report.stateDir) does not exist yet: nothing has run here"))
        case let .failed(reason): checks.append(Check(name: "state_dir", state: .unknown, message: "cannot read \(report.stateDir): \(reason)"))
        }
        switch database {
        case .read:
            let what = report.database.path.hasPrefix("postgres://") ? report.database.path : StatusFormat.bytes(report.database.sizeBytes)
            checks.append(Check(name: "database", state: .ok, message: "\(what) read in one snapshot"))
        case .absent:
            checks.append(Check(name: "database", state: .ok, message: "no database yet: no programme imported, nothing received"))
        case let .failed(reason):
            checks.append(Check(name: "database", state: .unknown, message: "cannot read \(report.database.path): \(reason)"))
        }
        checks.append(daemonCheck(report.daemon))
        if let store = artifactStoreCheck(report) { checks.append(store) }

        if !isFailure(database) {
            checks.append(overdueCheck(report))
            checks.append(encodeJobsCheck(report.encodeQueue))
            checks.append(notificationsCheck(report.notifications))
            checks.append(dropboxCheck(report.dropbox))
            if let pushes = report.pushes { checks.append(pushesCheck(pushes)) }
        }
        checks.append(diskCheck(report.disk))
        if !isFailure(database) {
            checks.append(missingArtifactsCheck(report.missingArtifacts))
            checks.append(backupCheck(report.backup))
            checks.append(erasureRequestsCheck(report.erasureRequests))
        }
        return checks
    }

    /// WARNING while a due erasure request is more than a day late (the automatic erasure is
    /// failing: the daemon's log says why, `tilawa erase` carries it out by hand); OK otherwise,
    /// saying how many are pending and when the next falls due.
    private func erasureRequestsCheck(_ requests: StatusReport.ErasureRequests) -> StatusReport.Check {
        let next = requests.earliestDueAt.map { ", the earliest due \(StatusFormat.instant($0))" } ?? ""
        let pending = StatusFormat.count(requests.pending, "erasure request")
        guard requests.late > 0 else {
            return .init(name: "erasure_requests", state: .ok, message: requests.pending == 0 ? "no erasure request pending" : "\(pending) pending\(next)")
        }
        return .init(name: "erasure_requests", state: .warning, message: """
            \(StatusFormat.count(requests.late, "erasure request")) due more than a day ago and not carried out (\(pending) pending\(next)): \
            the automatic erasure is failing; see the daemon's log, or run tilawa erase for each (tilawa erasure-requests lists them)
            """)
    }

    /// WARNING when backups are scheduled and the last is older than twice the interval (or
    /// there is none), or the last was not verified; OK otherwise, saying when it was made.
    private func backupCheck(_ backup: StatusReport.Backup) -> StatusReport.Check {
        let last = backup.lastAt.map { _ in
            "the last backup was made \(StatusFormat.age(backup.lastAgeSeconds ?? 0)) ago\(backup.verified == true ? " and verified" : ", not verified")"
        }
        if let hours = backup.everyHours {
            let limit = 2 * hours * 3_600
            guard let age = backup.lastAgeSeconds else {
                return .init(name: "backup", state: .warning, message: "backup.dir is set but no backup has been made yet")
            }
            if age > limit {
                return .init(name: "backup", state: .warning,
                             message: "\(last ?? "") — more than twice backup.every_hours (\(hours) h); see the daemon's log")
            }
        }
        if backup.lastAt != nil, backup.verified == false {
            return .init(name: "backup", state: .warning, message: (last ?? "") + ": run tilawa backup verify on it")
        }
        return .init(name: "backup", state: .ok, message: last ?? "no backup made (backup.dir is not set): a lost disk would lose everything")
    }

    private func isFailure(_ access: StatusAccess) -> Bool {
        if case .failed = access { true } else { false }
    }

    private func daemonCheck(_ daemon: StatusReport.Daemon) -> StatusReport.Check {
        let where_ = daemon.url.map { " at \($0)" } ?? ""
        if daemon.up && daemon.ready {
            var details: [String] = []
            if let uptime = daemon.uptimeSeconds { details.append("up \(StatusFormat.age(uptime))") }
            if let pid = daemon.pid { details.append("pid \(pid)") }
            // Serving while a check fails (the S3 store): that check says how bad it is.
            let degraded = (daemon.failingChecks ?? []).map(\.check)
            let state: String = degraded.isEmpty ? "ready" : "ready, degraded: \(degraded.joined(separator: ", "))"
            return .init(name: "daemon", state: .ok, message: state + (details.isEmpty ? "" : " (\(details.joined(separator: ", ")))"))
        }
        let problem = daemon.up
            ? "answers\(where_) but is not ready: \(daemon.error ?? "unknown reason")"
            : "does not answer\(where_): \(daemon.error ?? "no answer")"
        return daemon.expectedRunning
            ? .init(name: "daemon", state: .critical, message: "the daemon \(problem), and it should be running")
            : .init(name: "daemon", state: .warning, message: "the daemon \(problem)")
    }

    /// CRITICAL when the store artifacts are kept in does not answer the daemon (as its
    /// `/readyz` says, or as it finds itself): with an S3 store the node serves on, degraded —
    /// uploads and playback refused with Retry-After, the rest served — and out of rotation
    /// with a directory that is not there. OK when the daemon answered 200 (it asked the store)
    /// or looked itself; left out when that is not known (the daemon down, or out of rotation
    /// for another check: it asks the store last).
    private func artifactStoreCheck(_ report: StatusReport) -> StatusReport.Check? {
        let daemon = report.daemon
        if daemon.failingChecks?.contains(where: { $0.check == "artifact_store" }) == true {
            let store = report.disk.artifactsURL
            let message = store.hasPrefix("s3://")
                ? "the S3 store \(store) does not answer the daemon: it serves on, degraded — uploads and playback of recordings are "
                    + "refused with Retry-After until the store answers, the rest is served; tilawa s3 check looks at the store step by step"
                : "the directory artifacts are kept in is not there (an unmounted share?): the daemon is out of the balancer's rotation until it is"
            return .init(name: "artifact_store", state: .critical, message: message)
        }
        // From the daemon itself (no url) the store was asked whatever else failed.
        guard daemon.up, daemon.ready || daemon.url == nil else { return nil }
        return .init(name: "artifact_store", state: .ok, message: "the recordings' store (\(report.disk.artifactsURL)) answers the daemon")
    }

    private func overdueCheck(_ report: StatusReport) -> StatusReport.Check {
        let due = StatusFormat.hours(report.overdue.dueHours)
        if report.overdue.count == 0, report.questions.overdue > 0 {
            return .init(name: "feedback_overdue", state: .warning,
                         message: "\(StatusFormat.count(report.questions.overdue, "student question")) unanswered for more than \(due)")
        }
        guard report.overdue.count > 0 else {
            return .init(name: "feedback_overdue", state: .ok,
                         message: "none overdue; \(StatusFormat.count(report.awaitingFeedback.count, "submission")) awaiting feedback (due within \(due))")
        }
        let byCoach = report.overdueByCoach.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
            .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return .init(name: "feedback_overdue", state: .warning,
                     message: "\(StatusFormat.count(report.overdue.count, "submission")) awaiting feedback for more than \(due): \(byCoach)")
    }

    private func encodeJobsCheck(_ queue: StatusReport.EncodeQueue) -> StatusReport.Check {
        let pending = "\(queue.queued) queued, \(queue.running) running"
        guard queue.failed > 0 else { return .init(name: "encode_jobs", state: .ok, message: "\(pending), none failed") }
        return .init(name: "encode_jobs", state: .warning,
                     message: "\(StatusFormat.count(queue.failed, "encode job")) failed (\(pending)); their recordings are not playable")
    }

    /// WARNING when a push channel stopped (its key or topic refused: nothing is lost, the
    /// deliveries wait for a daemon started with it fixed) or a push waited over an hour.
    private func pushesCheck(_ pushes: StatusReport.Pushes) -> StatusReport.Check {
        if !pushes.stopped.isEmpty {
            let stops = pushes.stopped.sorted { $0.key < $1.key }
                .map { "pushes to \(Device.Platform(rawValue: $0.key)?.phones ?? $0.key) stopped: \($0.value)" }
            return .init(name: "pushes", state: .warning,
                         message: stops.joined(separator: "; ") + "; \(StatusFormat.count(pushes.pending, "push")) waiting — fix the key, then restart the daemon")
        }
        let sent = "\(StatusFormat.count(pushes.sentLast24h, "push")) sent in 24 h"
        guard pushes.pending > 0, let age = pushes.oldestPendingAgeSeconds else { return .init(name: "pushes", state: .ok, message: sent + ", none waiting") }
        let waiting = "\(StatusFormat.count(pushes.pending, "push")) waiting, the oldest for \(StatusFormat.age(age))"
        // Quiet hours hold pushes until morning: only a wait past a night's is a problem.
        guard age > 12 * 3_600 else { return .init(name: "pushes", state: .ok, message: "\(sent); \(waiting)") }
        return .init(name: "pushes", state: .warning, message: "\(waiting); does the push service answer this node?")
    }

    private func notificationsCheck(_ outbox: StatusReport.Notifications) -> StatusReport.Check {
        if let disabled = outbox.disabled, outbox.webhookConfigured {
            return .init(name: "notifications", state: .critical,
                         message: "deliveries are off: \(disabled); \(StatusFormat.count(outbox.count, "notification")) waiting — fix the receiver, then run tilawa events redeliver")
        }
        guard outbox.count > 0, let age = outbox.oldestAgeSeconds else {
            return .init(name: "notifications", state: .ok, message: "every notification delivered")
        }
        let waiting = "\(StatusFormat.count(outbox.count, "notification")) undelivered, the oldest for \(StatusFormat.age(age))"
        guard outbox.webhookConfigured else {
            return .init(name: "notifications", state: .ok, message: "no webhook.url configured: \(waiting), kept for the event feed")
        }
        guard Double(age) > notificationAge else { return .init(name: "notifications", state: .ok, message: waiting) }
        return .init(name: "notifications", state: .warning,
                     message: "\(waiting) (more than \(StatusFormat.age(Int(notificationAge)))); is the webhook receiver reachable?")
    }

    private func dropboxCheck(_ dropbox: StatusReport.Dropbox) -> StatusReport.Check {
        let backlog = "\(StatusFormat.count(dropbox.backlog, "file")) waiting"
        if !dropbox.suspended.isEmpty {
            let folders = dropbox.suspended.map { "\($0.folder) (\($0.reason))" }.joined(separator: "; ")
            return .init(name: "dropbox_rejections", state: .critical,
                         message: "coach folders suspended, nothing in them is taken: \(folders)")
        }
        guard dropbox.rejectedLast24h > 0 else {
            return .init(name: "dropbox_rejections", state: .ok, message: "none rejected in the last 24 h; \(backlog)")
        }
        return .init(name: "dropbox_rejections", state: .warning,
                     message: "\(StatusFormat.count(dropbox.rejectedLast24h, "coach reply", "coach replies")) rejected in the last 24 h "
                        + "(see rejected/ in the coaches' folders); \(backlog)")
    }

    private func diskCheck(_ disk: StatusReport.Disk) -> StatusReport.Check {
        guard let percent = disk.freePercent, let free = disk.freeBytes else {
            return .init(name: "disk_space", state: .unknown, message: "cannot examine the filesystem of \(disk.path)")
        }
        let text = "\(StatusFormat.percent(percent)) free (\(StatusFormat.bytes(free)))"
        if percent < diskCriticalPercent {
            return .init(name: "disk_space", state: .critical, message: "\(text), below \(StatusFormat.percent(diskCriticalPercent))")
        }
        if percent < diskWarningPercent {
            return .init(name: "disk_space", state: .warning, message: "\(text), below \(StatusFormat.percent(diskWarningPercent))")
        }
        return .init(name: "disk_space", state: .ok, message: text)
    }

    private func missingArtifactsCheck(_ missing: StatusReport.MissingArtifacts) -> StatusReport.Check {
        let window = StatusFormat.age(Int(recentArtifactWindow))
        var problems: [String] = []
        if missing.count > 0 {
            problems.append("\(StatusFormat.count(missing.count, "file")) of the last \(window) missing (e.g. \(missing.examples.first ?? "?"))")
        }
        if let sweep = missing.lastFullSweep, sweep.count > 0 {
            problems.append("the daemon's full sweep at \(StatusFormat.instant(sweep.sweptAt)) found \(StatusFormat.count(sweep.count, "file")) missing")
        }
        guard problems.isEmpty else {
            return .init(name: "missing_artifacts", state: .critical, message: problems.joined(separator: "; ") + "; restore them from backup")
        }
        let sweep = missing.lastFullSweep.map { "; full sweep at \(StatusFormat.instant($0.sweptAt)) found none" } ?? ""
        return .init(name: "missing_artifacts", state: .ok,
                     message: "none missing among \(StatusFormat.count(missing.checkedFiles, "file")) of the last \(window)\(sweep)")
    }
}
