import ArgumentParser
import Foundation
import TilawaAudio
import TilawaCore
import TilawaDaemon
import TilawaStore

/// Human rows for a submission.
enum SubmissionRows {
    /// `windowDays`: `attempts.window_days`, named in the attempts row.
    static func rows(for resource: SubmissionResource, windowDays: Int = 7) -> [(String, String)] {
        let slot = resource.week.map { "week \($0)" } ?? resource.kind.rawValue
        var rows: [(String, String)] = [
            ("submission", resource.id),
            ("student", resource.studentId),
            ("for", slot + (resource.late ? " (late)" : "")),
            ("state", resource.state.rawValue),
            ("received", ISO8601DateFormatter().string(from: resource.receivedAt)),
            ("duration", String(format: "%.1f s, %.1f s of speech", resource.analysis.durationSeconds, resource.analysis.speechSeconds)),
            ("attempts", "\(resource.attempts.used) of \(resource.attempts.limit) used in the last \(windowDays == 1 ? "day" : "\(windowDays) days")"),
        ]
        if let next = resource.attempts.nextAttemptAt {
            rows.append(("next attempt", ISO8601DateFormatter().string(from: next)))
        }
        for warning in resource.warnings { rows.append(("warning", warning)) }
        return rows
    }
}
