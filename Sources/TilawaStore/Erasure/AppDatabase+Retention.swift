import Foundation
import GRDB
import TilawaCore

/// What retention removed, or would.
public struct RetentionPlan: Sendable, Equatable {
    /// Submissions whose audio goes (their replies', marks' and questions' audio with them).
    public var submissions: [String]
    /// Paths relative to the artifacts root, with MP4/CAF variants.
    public var files: [String]
}

extension AppDatabase {
    /// `retention.months_after_semester` (DESIGN §12): the audio of enrolments whose semester
    /// closed at least `months` calendar months before `now` — the recordings, the coaches'
    /// replies to them, spoken marks and voice questions. Rows, states, words and counts stay;
    /// the audio routes then answer as for a recording without audio. With `dryRun` nothing is
    /// changed and the plan says what would go. The paths are returned to unlink after the commit.
    public func applyRetention(months: Int, now: Date, dryRun: Bool) throws -> RetentionPlan {
        try immediateWrite { db in
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = .gmt
            var expired: [String] = []
            for semester in try SemesterRecord.fetchAll(db) {
                let closes = try semester.calendar().closesAt
                if let limit = calendar.date(byAdding: .month, value: months, to: closes), limit <= now { expired.append(semester.id) }
            }
            guard !expired.isEmpty else { return RetentionPlan(submissions: [], files: []) }
            let semesters = expired.map { "'\($0.replacingOccurrences(of: "'", with: "''"))'" }.joined(separator: ",")
            let chosen = "SELECT submission.id FROM submission JOIN enrolment ON enrolment.id = submission.enrolmentId WHERE enrolment.semesterId IN (\(semesters))"
            let submissions = try String.fetchAll(db, sql: chosen + " AND (submission.audioPath IS NOT NULL OR submission.originalPath IS NOT NULL)")
            let files = try Self.audioFiles(db, ofSubmissions: chosen)
            if !dryRun {
                try db.execute(sql: """
                    UPDATE submission SET originalPath = NULL, audioPath = NULL, waveformPath = NULL WHERE id IN (\(chosen));
                    UPDATE feedback SET originalPath = NULL, audioPath = NULL, waveformPath = NULL WHERE submissionId IN (\(chosen));
                    UPDATE comment SET audioPath = NULL, waveformPath = NULL WHERE submissionId IN (\(chosen));
                    UPDATE annotation SET audioPath = NULL, waveformPath = NULL WHERE submissionId IN (\(chosen));
                    """)
            }
            return RetentionPlan(submissions: submissions, files: files)
        }
    }
}
