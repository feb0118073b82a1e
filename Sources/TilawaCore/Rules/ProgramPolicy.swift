import Foundation

/// The configurable parts of the programme's rules that are not stored with the semester.
public struct ProgramPolicy: Sendable, Equatable {
    /// The rolling attempt window (2 per 7 days by default).
    public var attemptWindow: AttemptWindow
    /// Distinct weeks needed before the end-of-course assessment.
    public var eocRequiredWeeks: Int
    /// Hours within which a coach's feedback is due.
    public var feedbackDueHours: Double

    /// Creates a policy; the defaults are the programme's.
    public init(attemptWindow: AttemptWindow = .standard, eocRequiredWeeks: Int = 12, feedbackDueHours: Double = 48) {
        self.attemptWindow = attemptWindow
        self.eocRequiredWeeks = eocRequiredWeeks
        self.feedbackDueHours = feedbackDueHours
    }
}
