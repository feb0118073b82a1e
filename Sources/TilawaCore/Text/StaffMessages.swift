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
}
