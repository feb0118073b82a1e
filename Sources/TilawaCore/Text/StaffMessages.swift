import Foundation

/// The sentences coaches and operations read in their notifications: whose recording, which
/// week, and by when.
public enum StaffMessages {
    /// `submission_ready_for_review`, to the coach of the enrolment.
    public static func readyForReview(student: String, week: Int?, title: String, due: Date, zone: TimeZone) -> EventMessage {
        EventMessage("submission_ready_for_review", [
            "student_name": .text(student), "week": .int(week), "title": .text(title), "due_at": .instant(due), "time_zone": .zone(zone),
        ])
    }

    /// `feedback_overdue`, to the coach and to operations.
    public static func feedbackOverdue(student: String, week: Int?, title: String, coachName: String?, due: Date, zone: TimeZone) -> EventMessage {
        EventMessage("feedback_overdue", [
            "student_name": .text(student), "week": .int(week), "title": .text(title), "coach_name": .text(coachName),
            "due_at": .instant(due), "time_zone": .zone(zone),
        ])
    }

    /// `question_asked`, to the coach: the student's question, quoted.
    public static func questionAsked(student: String, week: Int?, title: String, text: String, clipSeconds: Double?) -> EventMessage {
        EventMessage("question_asked", [
            "student_name": .text(student), "week": .int(week), "title": .text(title), "text": .text(text),
            "clip_seconds": clipSeconds.map(MessageValue.number),
        ])
    }

    /// `submission_withdrawn`, to the coach whose queue it left.
    public static func submissionWithdrawn(student: String, week: Int?, title: String) -> EventMessage {
        EventMessage("submission_withdrawn.coach", ["student_name": .text(student), "week": .int(week), "title": .text(title)])
    }

    /// `student_falling_behind`: nothing in since the enrolment began (`fromWeek` is the first
    /// week owed), or a streak of missed deadlines.
    public static func fallingBehind(student: String, missed: Int, fromWeek: Int, toWeek: Int, sinceStart: Bool) -> EventMessage {
        sinceStart
            ? EventMessage("student_falling_behind.new", ["student_name": .text(student), "missed": .int(missed)])
            : EventMessage("student_falling_behind.streak", [
                "student_name": .text(student), "missed": .int(missed), "from_week": .int(fromWeek), "to_week": .int(toWeek),
            ])
    }

    /// `coach_digest`: the coach's queue in one sentence, e.g. "Your queue: 3 recordings
    /// awaiting your reply (1 overdue) and 2 open questions; the oldest was due Tuesday 24
    /// November, 18:00 EST."
    public static func coachDigest(awaiting: Int, overdue: Int, openQuestions: Int, oldestDue: Date?, zone: TimeZone) -> EventMessage {
        EventMessage("coach_digest", [
            "awaiting": .int(awaiting), "overdue": .int(overdue), "open_questions": .int(openQuestions),
            "oldest_due_at": .instant(oldestDue), "time_zone": .zone(zone),
        ])
    }

    /// `storage_low`: "The state directory's disk has 4.1 GiB free (9 %); uploads are refused below 256 MiB."
    public static func storageLow(freeBytes: Int64, totalBytes: Int64, minimumFreeBytes: Int64) -> EventMessage {
        EventMessage("storage_low", [
            "free_bytes": .int(Int(freeBytes)), "total_bytes": .int(Int(totalBytes)), "minimum_free_bytes": .int(Int(minimumFreeBytes)),
        ])
    }

    static func coachDigestText(awaiting: Int, overdue: Int, openQuestions: Int, oldestDue: String?) -> String {
        var parts: [String] = []
        if awaiting > 0 {
            let recordings = awaiting == 1 ? "1 recording awaiting your reply" : "\(awaiting) recordings awaiting your reply"
            parts.append(overdue > 0 ? "\(recordings) (\(overdue) overdue)" : recordings)
        }
        if openQuestions > 0 {
            parts.append(openQuestions == 1 ? "1 open question" : "\(openQuestions) open questions")
        }
        var text = "Your queue: " + (parts.isEmpty ? "nothing waiting" : parts.joined(separator: " and "))
        if let oldestDue {
            text += overdue > 0 ? "; the oldest was due \(oldestDue)" : "; the oldest is due \(oldestDue)"
        }
        return text + "."
    }

    /// What a notification quotes of a comment: its text (the first 120 characters) in
    /// quotes, and for a voice clip its length — `“Is my madd right?” (a 0:12 voice message)`.
    public static func commentExcerpt(text: String, clipSeconds: Double?) -> String {
        let quoted = text.isEmpty ? nil : "“" + (text.count > 120 ? String(text.prefix(120)) + "…" : text) + "”"
        guard let clipSeconds else { return quoted ?? "" }
        let seconds = max(1, Int(clipSeconds.rounded()))
        let clip = "a \(seconds / 60):\(seconds % 60 < 10 ? "0" : "")\(seconds % 60) voice message"
        return quoted.map { "\($0) (\(clip))" } ?? clip
    }

    /// `desk_link_requested`, to the coach who asked for a new login link (the organisation delivers it).
    public static func deskLinkRequested(expiresAt: Date, zone: TimeZone) -> EventMessage {
        EventMessage("desk_link_requested", ["expires_at": .instant(expiresAt), "time_zone": .zone(zone)])
    }

    /// `erasure_requested`, to operations: a student asked for their recordings and personal
    /// data to be erased; it is carried out at `due` unless they cancel.
    public static func erasureRequested(student: String, due: Date, zone: TimeZone) -> EventMessage {
        EventMessage("erasure_requested", ["student_name": .text(student), "due_at": .instant(due), "time_zone": .zone(zone)])
    }

    /// `cover_started`, to the coach who now covers another's students.
    public static func coverStarted(coveredCoachName: String, until: Date, zone: TimeZone) -> EventMessage {
        EventMessage("cover_started", ["covered_coach_name": .text(coveredCoachName), "until": .instant(until), "time_zone": .zone(zone)])
    }
}
