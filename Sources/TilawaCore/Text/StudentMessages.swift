import Foundation

/// The sentences a student reads in notifications, in one place: what happened, which week
/// (`what`: "Week 8 — Al-Fil"), and when to expect what comes next.
public enum StudentMessages {
    /// `submission_received`; the turnaround is the configured one (`program.feedback_due_hours`).
    public static func recordingReceived(_ what: String, late: Bool, feedbackDueHours: Double) -> String {
        late
            ? "We received your recording for \(what). It arrived after the deadline and is marked late; your coach will still reply."
            : "We received your recording for \(what). Your coach will reply within \(hours(feedbackDueHours))."
    }

    /// `feedback_ready`, naming the coach when known.
    public static func feedbackReady(_ what: String, coachName: String?) -> String {
        "\(coachName ?? "Your coach") replied to your recording for \(what)."
    }

    /// `feedback_overdue`, past the configured turnaround.
    public static func feedbackOverdue(_ what: String, feedbackDueHours: Double) -> String {
        "Your coach's reply to your recording for \(what) is taking longer than \(hours(feedbackDueHours)); operations have been told."
    }

    /// "48 hours", "1 hour", "36.5 hours".
    static func hours(_ value: Double) -> String {
        let number = value.rounded() == value ? String(Int(value)) : String(format: "%.1f", value)
        return value == 1 ? "1 hour" : "\(number) hours"
    }
}
