import Foundation

/// The semester's weeks as instants: unlocks, deadlines, close and phase (DESIGN §1).
///
/// All arithmetic is in local calendar days of the programme time zone (default
/// `America/New_York`), so every week unlocks at local Saturday 00:00 and is due the
/// following Friday 23:59:59 local, whatever the DST changes in between: the week that
/// contains a change is 1 hour shorter or longer in absolute time. Nothing here reads
/// the clock; every question takes the instant it is about.
public struct SemesterCalendar: Sendable, Hashable, Codable {
    /// The local date week 1 unlocks on (a Saturday).
    public let start: LocalDate
    /// The programme time zone all local times are in (`program.time_zone`).
    public let timeZone: TimeZone
    /// Number of weeks in the semester (default 15).
    public let weekCount: Int
    /// Local calendar days after the last week's following week during which catch-up and
    /// end-of-course are still accepted (`catch_up_grace_days`, default 14).
    public let catchUpGraceDays: Int
    /// The instant the semester closes: `unlock(weekCount) + 7 days + catchUpGraceDays`,
    /// local midnight. Submissions at or after it are refused with `semester_closed`.
    public let closesAt: Date

    private let calendar: Calendar
    /// Local noon of the start date: noon exists on every day in every zone, midnight
    /// does not (some zones change at 00:00), so day arithmetic starts from here.
    private let startNoon: Date

    /// Builds the calendar, throwing if the start is not a real Saturday or a count is out of range.
    ///
    /// - Throws: `semester_not_saturday`, `invalid_start_date`, `invalid_week_count` (1…99),
    ///   `invalid_grace_days` (< 0).
    public init(
        start: LocalDate,
        timeZone: TimeZone,
        weekCount: Int = 15,
        catchUpGraceDays: Int = 14
    ) throws(RuleConfigurationError) {
        guard (1...99).contains(weekCount) else { throw .invalidWeekCount(weekCount) }
        guard catchUpGraceDays >= 0 else { throw .invalidGraceDays(catchUpGraceDays) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let wanted = DateComponents(year: start.year, month: start.month, day: start.day, hour: 12)
        // `date(from:)` silently rolls 30 February over to 2 March; reading the parts back catches it.
        guard let noon = calendar.date(from: wanted) else { throw .invalidStartDate(start) }
        let actual = calendar.dateComponents([.year, .month, .day, .weekday], from: noon)
        guard actual.year == start.year, actual.month == start.month, actual.day == start.day else {
            throw .invalidStartDate(start)
        }
        // Gregorian weekday 7 is Saturday.
        guard actual.weekday == 7 else { throw .semesterNotSaturday(start) }

        self.start = start
        self.timeZone = timeZone
        self.weekCount = weekCount
        self.catchUpGraceDays = catchUpGraceDays
        self.calendar = calendar
        self.startNoon = noon
        self.closesAt = Self.localMidnight(daysAfterStart: 7 * weekCount + catchUpGraceDays, noon: noon, calendar: calendar)
    }

    /// Builds the calendar from an IANA zone name, as read from configuration.
    ///
    /// - Throws: `invalid_time_zone` as well as everything `init(start:timeZone:…)` throws.
    public init(
        start: LocalDate,
        timeZoneIdentifier: String = "America/New_York",
        weekCount: Int = 15,
        catchUpGraceDays: Int = 14
    ) throws(RuleConfigurationError) {
        guard let zone = TimeZone(identifier: timeZoneIdentifier) else {
            throw .invalidTimeZone(timeZoneIdentifier)
        }
        try self.init(start: start, timeZone: zone, weekCount: weekCount, catchUpGraceDays: catchUpGraceDays)
    }

    /// The instant week `week` unlocks: local Saturday 00:00 of `start + 7·(week − 1)` days.
    ///
    /// Weeks outside 1…`weekCount` are extrapolated on the same rule (week `weekCount + 1`
    /// is the end of the last week); validate user input with `Slot` first.
    public func unlock(week: Int) -> Date {
        Self.localMidnight(daysAfterStart: 7 * (week - 1), noon: startNoon, calendar: calendar)
    }

    /// The last second of week `week`: the following Friday 23:59:59 local, `unlock(week + 1) − 1 s`.
    ///
    /// A recording is late only from `unlock(week + 1)` on (see `isLate`), so the whole
    /// 23:59:59 second, fractions included, is on time.
    public func deadline(week: Int) -> Date {
        unlock(week: week + 1).addingTimeInterval(-1)
    }

    /// Whether week `week` has unlocked at `instant` (unlock instant included).
    public func isUnlocked(week: Int, at instant: Date) -> Bool {
        instant >= unlock(week: week)
    }

    /// Whether a recording received at `receivedAt` is past week `week`'s deadline.
    ///
    /// True from the next week's unlock (local Saturday 00:00:00) on; 23:59:59.999 is on time.
    public func isLate(week: Int, receivedAt: Date) -> Bool {
        receivedAt >= unlock(week: week + 1)
    }

    /// Whether the semester is closed at `instant` (`closesAt` included).
    public func isClosed(at instant: Date) -> Bool {
        instant >= closesAt
    }

    /// The phase at `instant`: `pre_semester`, `active`, `eoc` or `closed`.
    public func phase(at instant: Date) -> SemesterPhase {
        if instant < unlock(week: 1) { return .preSemester }
        if instant < unlock(week: weekCount + 1) { return .active }
        if instant < closesAt { return .eoc }
        return .closed
    }

    /// The newest unlocked week at `instant`: nil before week 1 unlocks, `weekCount` after the last week.
    public func currentWeek(at instant: Date) -> Int? {
        guard instant >= unlock(week: 1) else { return nil }
        var week = 1
        while week < weekCount, instant >= unlock(week: week + 1) {
            week += 1
        }
        return week
    }

    /// Local calendar days from `from`'s day to `to`'s day in the programme's zone (0 on the
    /// same day, 1 when `to` is tomorrow); never negative.
    public func localDaysBetween(_ from: Date, and to: Date, in zone: TimeZone? = nil) -> Int {
        var calendar = self.calendar
        if let zone { calendar.timeZone = zone }
        let days = calendar.dateComponents([.day], from: calendar.startOfDay(for: from), to: calendar.startOfDay(for: to)).day ?? 0
        return max(0, days)
    }

    private static func localMidnight(daysAfterStart days: Int, noon: Date, calendar: Calendar) -> Date {
        // Adding calendar days keeps the wall-clock time (12:00) across DST changes; the
        // fallback of 24-hour days is never taken for the Gregorian calendar but keeps this total.
        let dayNoon = calendar.date(byAdding: .day, value: days, to: noon)
            ?? noon.addingTimeInterval(Double(days) * 86_400)
        return calendar.startOfDay(for: dayNoon)
    }

    private enum CodingKeys: String, CodingKey {
        case start
        case timeZone = "time_zone"
        case weekCount = "week_count"
        case catchUpGraceDays = "catch_up_grace_days"
    }

    /// Decodes `{start, time_zone, week_count, catch_up_grace_days}` and validates like the initialiser.
    ///
    /// Only `start` is required; missing members take the programme defaults
    /// (America/New_York, 15, 14).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let start = try container.decode(LocalDate.self, forKey: .start)
        let zone = try container.decodeIfPresent(String.self, forKey: .timeZone) ?? "America/New_York"
        let weeks = try container.decodeIfPresent(Int.self, forKey: .weekCount) ?? 15
        let grace = try container.decodeIfPresent(Int.self, forKey: .catchUpGraceDays) ?? 14
        do {
            try self.init(start: start, timeZoneIdentifier: zone, weekCount: weeks, catchUpGraceDays: grace)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .start, in: container, debugDescription: error.description)
        }
    }

    /// Encodes `{start, time_zone, week_count, catch_up_grace_days}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(start, forKey: .start)
        try container.encode(timeZone.identifier, forKey: .timeZone)
        try container.encode(weekCount, forKey: .weekCount)
        try container.encode(catchUpGraceDays, forKey: .catchUpGraceDays)
    }
}
