import Foundation

/// The sentences a student reads in notifications, in one place: what happened, which week
/// (`what`: "Week 8 — Al-Fil"), and when to expect what comes next.
public enum StudentMessages {
    /// `submission_received` for a weekly recording, naming the coach who will reply and the
    /// configured turnaround (`program.feedback_due_hours`).
    public static func recordingReceived(_ what: String, late: Bool, coachName: String?, feedbackDueHours: Double) -> String {
        let coach = coachName ?? "Your coach"
        return late
            ? "We received your recording for \(what). It arrived after the deadline and is marked late; \(coach) will still reply."
            : "We received your recording for \(what). \(coach) will reply within \(hours(feedbackDueHours))."
    }

    /// `submission_received` for the end-of-course assessment.
    public static func eocReceived(businessDays: Int, expectedBy: String) -> String {
        "We received your end-of-course assessment. Results take up to \(days(businessDays)); expect them by \(expectedBy)."
    }

    /// `submission_received` for the placement assessment.
    public static func assessmentReceived(placed: Bool, placementDueHours: Double) -> String {
        placed
            ? "We received your placement assessment; a coach will listen to it."
            : "We received your placement assessment. You'll be placed in a level within \(hours(placementDueHours))."
    }

    /// `submission_failed`: the recording was lost to an internal error; the attempt is back.
    public static func submissionFailed(_ what: String) -> String {
        "We couldn't process your recording for \(what) — please record it again; it did not use an attempt."
    }

    /// `placement_ready`.
    public static func placementReady(levelName: String, coachName: String) -> String {
        "You've been placed in \(levelName); your coach is \(coachName)."
    }

    /// `enrolled`, e.g. "Welcome to Level 3 — Intermediate: your coach is Ustadh Yusuf; week 1 unlocks Saturday 9 January, 00:00 EST."
    public static func enrolled(levelName: String, coachName: String, semesterName: String, weekOneUnlocks: String) -> String {
        "Welcome to \(levelName) for \(semesterName): your coach is \(coachName); week 1 unlocks \(weekOneUnlocks)."
    }

    /// `week_unlocked`: "Week 9 is here! Your new lesson is ready: Al-Ma'un (Al-Ma'un 107:1-7), due Friday 13 March, 23:59 EDT."
    public static func weekUnlocked(week: Int, title: String, passage: String?, due: String) -> String {
        "Week \(week) is here! Your new lesson is ready: \(title)\(passage.map { " (\($0))" } ?? ""), due \(due)."
    }

    /// `deadline_reminder`, sent only while nothing is submitted for the week.
    public static func deadlineReminder(week: Int, title: String, due: String, daysBefore: Int) -> String {
        let left = daysBefore <= 0 ? "today" : daysBefore == 1 ? "tomorrow" : "in \(daysBefore) days"
        return "Week \(week) (\(title)) is due \(left), \(due), and nothing is submitted for it yet."
    }

    /// `eoc_available`.
    public static func eocAvailable(levelName: String, closes: String) -> String {
        "Your end-of-course assessment for \(levelName) is open: record it before \(closes)."
    }

    /// `eoc_results_ready`.
    public static func eocResultsReady(levelName: String, result: EOCResult) -> String {
        switch result {
        case .pass: "Your EOC results are in: congratulations! You've graduated \(levelName)."
        case .retake: "Your EOC results are in: your coach has asked for a retake of the \(levelName) assessment; you may record it once more."
        }
    }

    /// `feedback_ready`, naming the coach when known.
    public static func feedbackReady(_ what: String, coachName: String?) -> String {
        "\(coachName ?? "Your coach") replied to your recording for \(what)."
    }


    /// The sentence an unplaced student reads on the timeline and on `not_placed`, with the
    /// programme's own promise (`program.placement_due_hours`).
    public static func awaitingPlacement(placementDueHours: Double) -> String {
        "We're reviewing your assessment — you'll be placed in a level within \(hours(placementDueHours)). Weekly lessons start once you are placed."
    }

    /// The sentence of an unplaced student who has not recorded the assessment yet.
    public static let recordPlacement =
        "Record your placement assessment so a coach can place you in a level; weekly lessons start once you are placed."

    /// "5 business days", "1 business day".
    public static func days(_ value: Int) -> String {
        value == 1 ? "1 business day" : "\(value) business days"
    }

    /// "48 hours", "1 hour", "36.5 hours".
    public static func hours(_ value: Double) -> String {
        let number = value.rounded() == value ? String(Int(value)) : String(format: "%.1f", value)
        return value == 1 ? "1 hour" : "\(number) hours"
    }
}
