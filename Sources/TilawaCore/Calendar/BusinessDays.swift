import Foundation

/// Monday–Friday in the programme's time zone, less listed holidays: the clock the
/// end-of-course results run on ("results take up to 5 business days").
public struct BusinessDays: Sendable, Hashable {
    /// The programme time zone the days are counted in.
    public let timeZone: TimeZone
    /// Local dates that are not business days although they fall on a weekday.
    public let holidays: Set<LocalDate>

    /// A business-day calendar in `timeZone`.
    public init(timeZone: TimeZone, holidays: Set<LocalDate> = []) {
        self.timeZone = timeZone
        self.holidays = holidays
    }

    /// The instant `count` business days after `instant`, at the same local time of day.
    ///
    /// A start on a weekend or a holiday first moves to the next business day (same local
    /// time): something received on Saturday is counted from Monday. The local time is kept
    /// across DST changes; where it does not exist that day, the calendar's next valid time is used.
    public func adding(_ count: Int, to instant: Date) -> Date {
        let calendar = self.calendar
        var day = instant
        while !isBusinessDay(day, calendar) { day = next(day, calendar) }
        var remaining = count
        while remaining > 0 {
            day = next(day, calendar)
            if isBusinessDay(day, calendar) { remaining -= 1 }
        }
        return day
    }

    /// Whether the local day of `instant` is Monday–Friday and not a holiday.
    public func isBusinessDay(_ instant: Date) -> Bool {
        isBusinessDay(instant, calendar)
    }

    private var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    private func isBusinessDay(_ instant: Date, _ calendar: Calendar) -> Bool {
        let parts = calendar.dateComponents([.year, .month, .day, .weekday], from: instant)
        // Gregorian weekday 1 is Sunday, 7 Saturday.
        guard let weekday = parts.weekday, (2...6).contains(weekday) else { return false }
        return !holidays.contains(LocalDate(year: parts.year ?? 0, month: parts.month ?? 0, day: parts.day ?? 0))
    }

    private func next(_ instant: Date, _ calendar: Calendar) -> Date {
        calendar.date(byAdding: .day, value: 1, to: instant) ?? instant.addingTimeInterval(86_400)
    }
}
