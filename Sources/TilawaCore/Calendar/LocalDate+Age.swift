import Foundation

extension LocalDate {
    /// Whether the date exists on the Gregorian calendar (no 30 February, no 29 February 2027).
    public var isReal: Bool {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        guard let noon = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: 12)) else { return false }
        let parts = calendar.dateComponents([.year, .month, .day], from: noon)
        return parts.year == year && parts.month == month && parts.day == day
    }

    /// The whole years a person born on this date has lived at `instant`, by the calendar of
    /// `timeZone`: a birthday counts from the start of its local day, and one on 29 February
    /// counts from 1 March in other years.
    public func age(at instant: Date, in timeZone: TimeZone) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let today = calendar.dateComponents([.year, .month, .day], from: instant)
        guard let year = today.year, let month = today.month, let day = today.day else { return 0 }
        let birthdayPassed = (month, day) >= (self.month, self.day)
        return year - self.year - (birthdayPassed ? 0 : 1)
    }
}
