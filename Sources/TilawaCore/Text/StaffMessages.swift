import Foundation

/// The sentences coaches and operations read in their notifications: whose recording, which
/// week, and by when.
public enum StaffMessages {
    /// `submission_ready_for_review`, to the coach of the enrolment.
    public static func readyForReview(student: String, what: String, due: String) -> String {
        "\(student)'s recording for \(what) is ready for your review; please reply by \(due)."
    }

    /// `feedback_overdue`, to the coach and to operations.
    public static func feedbackOverdue(student: String, what: String, coachName: String?, due: String) -> String {
        "\(student)'s recording for \(what) is still waiting for \(coachName ?? "a coach")'s reply; it was due \(due)."
    }

    /// `coach_digest`: the coach's queue in one sentence, e.g. "Your queue: 3 recordings
    /// awaiting your reply (1 overdue) and 2 open questions; the oldest was due Tuesday 24
    /// November, 18:00 EST."
    public static func coachDigest(awaiting: Int, overdue: Int, openQuestions: Int, oldestDue: String?) -> String {
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
}
