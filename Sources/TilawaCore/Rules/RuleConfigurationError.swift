/// A programme setting the rules cannot work with; stops start-up (exit 78) or a roster import.
///
/// `code` is stable snake_case; `description` is one line naming what is wrong.
public enum RuleConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The semester start is not a Saturday in the programme time zone (DESIGN §1: weeks unlock on Saturdays).
    case semesterNotSaturday(LocalDate)
    /// The start date does not exist (e.g. 2026-02-30).
    case invalidStartDate(LocalDate)
    /// The time-zone identifier is not known to this system's time-zone database.
    case invalidTimeZone(String)
    /// The week count is outside 1…99 (week numbers are at most two digits in paths and file names).
    case invalidWeekCount(Int)
    /// Catch-up grace days are negative.
    case invalidGraceDays(Int)
    /// The attempt limit is below 1.
    case invalidAttemptLimit(Int)
    /// The attempt window length is not a positive, finite number of seconds.
    case invalidAttemptWindowLength(Double)
    /// The end-of-course requirement is negative or more than the semester's weeks.
    case invalidEOCRequiredWeeks(Int, weekCount: Int)
    /// The week the end-of-course assessment opens is not a week of the semester.
    case invalidEOCOpensWeek(Int, weekCount: Int)

    /// The stable snake_case code.
    public var code: String {
        switch self {
        case .semesterNotSaturday: "semester_not_saturday"
        case .invalidStartDate: "invalid_start_date"
        case .invalidTimeZone: "invalid_time_zone"
        case .invalidWeekCount: "invalid_week_count"
        case .invalidGraceDays: "invalid_grace_days"
        case .invalidAttemptLimit: "invalid_attempt_limit"
        case .invalidAttemptWindowLength: "invalid_attempt_window_length"
        case .invalidEOCRequiredWeeks: "invalid_eoc_required_weeks"
        case .invalidEOCOpensWeek: "invalid_eoc_opens_week"
        }
    }

    /// One line saying what is wrong and what is expected.
    public var description: String {
        switch self {
        case let .semesterNotSaturday(date):
            "The semester start \(date) is not a Saturday; weeks unlock on Saturdays."
        case let .invalidStartDate(date):
            "The semester start \(date) is not a real calendar date."
        case let .invalidTimeZone(identifier):
            "The time zone \(MessageText.quoted(identifier)) is unknown; use an IANA name such as America/New_York."
        case let .invalidWeekCount(count):
            "The semester must have 1 to 99 weeks, not \(count)."
        case let .invalidGraceDays(days):
            "Catch-up grace days must be 0 or more, not \(days)."
        case let .invalidAttemptLimit(limit):
            "The attempt limit must be 1 or more, not \(limit)."
        case let .invalidAttemptWindowLength(seconds):
            "The attempt window must be a positive number of seconds, not \(seconds)."
        case let .invalidEOCRequiredWeeks(weeks, weekCount):
            "The end-of-course requirement must be 0 to \(weekCount) weeks, not \(weeks)."
        case let .invalidEOCOpensWeek(week, weekCount):
            "The end-of-course assessment must open in week 1 to \(weekCount), not \(week)."
        }
    }
}
