import Foundation

/// A notice sent at most once a local day, from a local time on (a coach's digest): due
/// from that moment until the day ends, so a daemon that was down over the moment sends it
/// when it comes back, the same day, and never a day's notice on the next.
public struct DailyMoment: Sendable, Hashable {
    /// The local time of day it is due from.
    public let at: LocalTime

    public init(at: LocalTime) {
        self.at = at
    }

    /// The local day whose notice is due at `now`, or nil before today's moment.
    public func dueDay(at now: Date, timeZone: TimeZone) -> LocalDate? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: now)
        guard let year = parts.year, let month = parts.month, let day = parts.day else { return nil }
        guard (parts.hour ?? 0) * 60 + (parts.minute ?? 0) >= at.minutes else { return nil }
        return LocalDate(year: year, month: month, day: day)
    }

    /// The local day of `now` in `timeZone`.
    public static func day(of now: Date, in timeZone: TimeZone) -> LocalDate {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: now)
        return LocalDate(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1)
    }
}
