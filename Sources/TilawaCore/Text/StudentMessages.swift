import Foundation

/// The sentences a student reads in notifications, in one place: what happened, which week
/// (`what`: "Week 8 — Al-Fil"), and when to expect what comes next.
public enum StudentMessages {
    /// `submission_received` for a weekly recording, naming the coach who will reply and the
    /// configured turnaround (`program.feedback_due_hours`).
    public static func recordingReceived(week: Int, title: String?, late: Bool, coachName: String?, feedbackDueHours: Double) -> EventMessage {
        EventMessage(late ? "submission_received.week_late" : "submission_received.week", [
            "week": .int(week), "title": .text(title), "coach_name": .text(coachName),
            "feedback_due_hours": late ? nil : .number(feedbackDueHours),
        ])
    }

    /// `submission_received` for the end-of-course assessment.
    public static func eocReceived(businessDays: Int, expectedBy: Date, zone: TimeZone) -> EventMessage {
        EventMessage("submission_received.eoc", ["business_days": .int(businessDays), "expected_by": .instant(expectedBy), "time_zone": .zone(zone)])
    }

    /// `submission_received` for the placement assessment.
    public static func assessmentReceived(placed: Bool, placementDueHours: Double) -> EventMessage {
        placed ? EventMessage("submission_received.assessment_placed", [:])
            : EventMessage("submission_received.assessment", ["placement_due_hours": .number(placementDueHours)])
    }

    /// `submission_failed`: the recording was lost to an internal error; the attempt is back.
    public static func submissionFailed(week: Int?, title: String) -> EventMessage {
        EventMessage("submission_failed", ["week": .int(week), "title": .text(title)])
    }

    /// `submission_withdrawn`, to the student who withdrew it (not pushed).
    public static func submissionWithdrawn(week: Int?, title: String) -> EventMessage {
        EventMessage("submission_withdrawn", ["week": .int(week), "title": .text(title)])
    }

    /// `submission_refused`: a resumable upload finished (perhaps in the background) and was
    /// not accepted; `detail` is the refusal's own sentence, saying what to do.
    public static func submissionRefused(week: Int?, title: String, code: String, detail: String) -> EventMessage {
        EventMessage("submission_refused", ["week": .int(week), "title": .text(title), "code": .text(code), "detail": .text(detail)])
    }

    /// `placement_ready`.
    public static func placementReady(levelName: String, coachName: String) -> EventMessage {
        EventMessage("placement_ready", ["level_name": .text(levelName), "coach_name": .text(coachName)])
    }

    /// `enrolled`, e.g. "Welcome to Level 3 — Intermediate for Fall 2026: your coach is Ustadh Yusuf; week 1 unlocks Saturday 9 January, 00:00 EST."
    public static func enrolled(levelName: String, coachName: String, semesterName: String, weekOneUnlocks: Date, zone: TimeZone) -> EventMessage {
        EventMessage("enrolled", [
            "level_name": .text(levelName), "coach_name": .text(coachName), "semester_name": .text(semesterName),
            "week_one_unlocks_at": .instant(weekOneUnlocks), "time_zone": .zone(zone),
        ])
    }

    /// `week_unlocked`: "Week 9 is here! Your new lesson is ready: Al-Ma'un (Al-Ma'un 107:1-7), due Friday 13 March, 23:59 EDT."
    public static func weekUnlocked(week: Int, title: String, passage: String?, due: Date, zone: TimeZone) -> EventMessage {
        EventMessage("week_unlocked", [
            "week": .int(week), "title": .text(title), "passage": .text(passage), "due_at": .instant(due), "time_zone": .zone(zone),
        ])
    }

    /// `deadline_reminder`, sent only while nothing is submitted for the week; `daysLeft`
    /// local days from now to the deadline's day.
    public static func deadlineReminder(week: Int, title: String, due: Date, zone: TimeZone, daysLeft: Int) -> EventMessage {
        EventMessage("deadline_reminder", [
            "week": .int(week), "title": .text(title), "due_at": .instant(due), "time_zone": .zone(zone), "days_left": .int(daysLeft),
        ])
    }

    /// `eoc_available`.
    public static func eocAvailable(levelName: String, closes: Date, zone: TimeZone) -> EventMessage {
        EventMessage("eoc_available", ["level_name": .text(levelName), "closes_at": .instant(closes), "time_zone": .zone(zone)])
    }

    /// `eoc_results_ready`.
    public static func eocResultsReady(levelName: String, result: EOCResult) -> EventMessage {
        EventMessage(result == .pass ? "eoc_results_ready.pass" : "eoc_results_ready.retake", ["level_name": .text(levelName)])
    }

    /// `feedback_ready`, naming the coach when known.
    public static func feedbackReady(week: Int?, title: String, coachName: String?) -> EventMessage {
        EventMessage("feedback_ready", ["week": .int(week), "title": .text(title), "coach_name": .text(coachName)])
    }

    /// `annotation_added`: a mark the coach added after the reply went out, at an ayah or a time.
    public static func annotationAdded(coachName: String?, surah: Int?, ayah: Int?, atSeconds: Double, week: Int?, title: String,
                                       kind: String, text: String, clipSeconds: Double?) -> EventMessage {
        EventMessage("annotation_added", [
            "coach_name": .text(coachName), "surah": .int(surah), "ayah": surah == nil ? nil : .int(ayah ?? 0), "at_seconds": .number(atSeconds),
            "week": .int(week), "title": .text(title), "kind": .text(kind), "text": .text(text), "clip_seconds": clipSeconds.map(MessageValue.number),
        ])
    }

    /// `question_answered`: the coach's answer, quoted.
    public static func questionAnswered(coachName: String?, week: Int?, title: String, text: String, clipSeconds: Double?) -> EventMessage {
        EventMessage("question_answered", [
            "coach_name": .text(coachName), "week": .int(week), "title": .text(title), "text": .text(text),
            "clip_seconds": clipSeconds.map(MessageValue.number),
        ])
    }

    /// `announcement`: the programme's title and text.
    public static func announcement(title: String, body: String) -> EventMessage {
        EventMessage("announcement", ["title": .text(title), "body": .text(body)])
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

    /// `deadline_extended`: the back office moved a deadline (DESIGN §11).
    public static func deadlineExtended(week: Int?, title: String, due: Date, zone: TimeZone) -> EventMessage {
        EventMessage("deadline_extended", ["week": .int(week), "title": .text(title), "due_at": .instant(due), "time_zone": .zone(zone)])
    }

    /// `attempts_granted`: recordings beyond the attempt window.
    public static func attemptsGranted(count: Int, expiresAt: Date, zone: TimeZone) -> EventMessage {
        EventMessage("attempts_granted", ["count": .int(count), "expires_at": .instant(expiresAt), "time_zone": .zone(zone)])
    }

    /// `feedback_moved`: a reply misfiled under the student's recording was moved away.
    public static func feedbackMoved(week: Int?, title: String, coachName: String?) -> EventMessage {
        EventMessage("feedback_moved", ["week": .int(week), "title": .text(title), "coach_name": .text(coachName)])
    }

    /// `enrolment_changed.coach|level|paused|resumed|left`.
    public static func enrolmentChanged(_ change: String, coachName: String? = nil, levelName: String? = nil) -> EventMessage {
        EventMessage("enrolment_changed.\(change)", ["coach_name": .text(coachName), "level_name": .text(levelName)])
    }
}
