import Foundation

/// The configurable parts of the programme's rules that are not stored with the semester.
public struct ProgramPolicy: Sendable, Equatable {
    /// The rolling attempt window (2 per 7 days by default).
    public var attemptWindow: AttemptWindow
    /// Distinct weeks needed before the end-of-course assessment.
    public var eocRequiredWeeks: Int
    /// Whether a late joiner owes them all (`strict`, default) or only the weeks since they
    /// were placed (`proportional`).
    public var lateJoiners: SubmissionRules.LateJoiners = .strict
    /// Hours within which a coach's feedback on a weekly recording is due.
    public var feedbackDueHours: Double
    /// Business days within which an end-of-course result is due (default 5).
    public var eocFeedbackDueBusinessDays: Int
    /// Local dates that are not business days (`program.holidays`).
    public var holidays: Set<LocalDate>
    /// Hours within which a placement assessment is answered with a level (default 48).
    public var placementDueHours: Double
    /// When `week_unlocked` and `deadline_reminder` are due (`notifications.*`).
    public var notificationSchedule: NotificationSchedule
    /// `privacy.*`: whether a recording needs a consent, to which policy, and who gives it.
    public var consent = ConsentTerms()

    /// Creates a policy; the defaults are the programme's.
    public init(
        attemptWindow: AttemptWindow = .standard, eocRequiredWeeks: Int = 12, feedbackDueHours: Double = 48,
        eocFeedbackDueBusinessDays: Int = 5, holidays: Set<LocalDate> = [], placementDueHours: Double = 48,
        notificationSchedule: NotificationSchedule = .standard
    ) {
        self.attemptWindow = attemptWindow
        self.eocRequiredWeeks = eocRequiredWeeks
        self.feedbackDueHours = feedbackDueHours
        self.eocFeedbackDueBusinessDays = eocFeedbackDueBusinessDays
        self.holidays = holidays
        self.placementDueHours = placementDueHours
        self.notificationSchedule = notificationSchedule
    }

    /// When the coach's answer to a recording of `kind` received at `receivedAt` is due:
    /// weekly `feedbackDueHours` later, the end-of-course assessment
    /// `eocFeedbackDueBusinessDays` business days later (same local time), the placement
    /// assessment `placementDueHours` later.
    public func feedbackDueAt(kind: SubmissionKind, receivedAt: Date, timeZone: TimeZone) -> Date {
        switch kind {
        case .week: receivedAt.addingTimeInterval(feedbackDueHours * 3_600)
        case .eoc: BusinessDays(timeZone: timeZone, holidays: holidays).adding(eocFeedbackDueBusinessDays, to: receivedAt)
        case .assessment: receivedAt.addingTimeInterval(placementDueHours * 3_600)
        }
    }
}
