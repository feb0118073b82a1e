import Foundation
import GRDB
import TilawaCore

/// How well the promise to students is kept: of the weekly recordings whose reply fell due in
/// a window, how many were answered by then (`program.feedback_due_hours` after they came in).
public struct ReplyTurnaround: Sendable, Equatable {
    /// Weekly recordings whose reply fell due in the window (withdrawn, failed and superseded
    /// ones left out: no reply was owed to them).
    public var due: Int
    /// Of those, answered by their `feedbackDueAt`.
    public var inTime: Int

    public init(due: Int, inTime: Int) {
        self.due = due
        self.inTime = inTime
    }

    /// `inTime / due`; nil when nothing fell due.
    public var share: Double? { due > 0 ? Double(inTime) / Double(due) : nil }

    /// Every coach's figures added up.
    public static func total(_ figures: some Collection<ReplyTurnaround>) -> ReplyTurnaround {
        ReplyTurnaround(due: figures.reduce(0) { $0 + $1.due }, inTime: figures.reduce(0) { $0 + $1.inTime })
    }
}

extension AppDatabase {
    /// The window the turnaround is counted over: replies due in the last 28 days.
    public static let turnaroundWindow: TimeInterval = 28 * 86_400

    /// The reply turnaround by the coach of each recording's enrolment, over the weekly
    /// recordings whose reply fell due in the `turnaroundWindow` before `now`.
    public func replyTurnaround(now: Date) async throws -> [String: ReplyTurnaround] {
        try await engine.read { db in try Self.replyTurnaround(db, now: now) }
    }

    static func replyTurnaround(_ db: SQLSession, now: Date) throws -> [String: ReplyTurnaround] {
        guard try db.tableExists("enrolment") else { return [:] }
        var figures: [String: ReplyTurnaround] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT COALESCE(enrolment.coachId, 'unplaced') AS coach, COUNT(*) AS due,
                   COALESCE(SUM(CASE WHEN (SELECT MIN(feedback.receivedAt) FROM feedback WHERE feedback.submissionId = submission.id)
                                          <= submission.feedbackDueAt THEN 1 ELSE 0 END), 0) AS answered
            FROM submission JOIN enrolment ON enrolment.id = submission.enrolmentId
            WHERE submission.kind = 'week' AND submission.state NOT IN ('withdrawn', 'failed', 'superseded')
              AND submission.feedbackDueAt >= ? AND submission.feedbackDueAt < ?
            GROUP BY 1
            """, arguments: [now.addingTimeInterval(-turnaroundWindow), now]) {
            figures[row["coach"]] = ReplyTurnaround(due: row["due"], inTime: row["answered"])
        }
        return figures
    }
}
