import Foundation

/// When the calendar's own notifications are due (issue: "the weekly loop"): `week_unlocked`
/// at each week's unlock, and `deadline_reminder`s a number of days before its deadline at a
/// local time, moved out of quiet hours. A pure function of the calendar: the store decides
/// who gets one and records each exactly once.
public struct NotificationSchedule: Sendable, Hashable {
    /// One reminder: `daysBefore` local days before the deadline's day, at `at` (default
    /// Wednesday and Thursday at 18:00 before a Friday 23:59 deadline: 2@18:00 and 1@18:00).
    public struct Reminder: Sendable, Hashable {
        public let daysBefore: Int
        public let at: LocalTime

        public init(daysBefore: Int, at: LocalTime) {
            self.daysBefore = daysBefore
            self.at = at
        }
    }

    /// A local span nothing is sent in; `start > end` wraps midnight (21:00–08:00).
    public struct QuietHours: Sendable, Hashable {
        public let start: LocalTime
        public let end: LocalTime

        public init(start: LocalTime, end: LocalTime) {
            self.start = start
            self.end = end
        }

        /// Whether a local time of day is inside.
        public func contains(minutes: Int) -> Bool {
            start <= end ? (start.minutes..<end.minutes).contains(minutes)
                : minutes >= start.minutes || minutes < end.minutes
        }

        /// `HH:MM-HH:MM`, or nil for anything else (equal ends included: a span of nothing or everything).
        public init?(parsing text: String) {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, let start = LocalTime(String(parts[0])), let end = LocalTime(String(parts[1])),
                  start != end else { return nil }
            self.init(start: start, end: end)
        }

        /// `HH:MM-HH:MM`.
        public var text: String { "\(start)-\(end)" }

        /// When the span `instant` falls in ends, in `calendar`'s zone; nil when it is outside.
        public func end(containing instant: Date, calendar: Calendar) -> Date? {
            let parts = calendar.dateComponents([.hour, .minute], from: instant)
            let minutes = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
            guard contains(minutes: minutes) else { return nil }
            let day = calendar.startOfDay(for: instant)
            // In the evening part of a span that wraps midnight, it ends tomorrow.
            let endDay = start > end && minutes >= start.minutes ? calendar.date(byAdding: .day, value: 1, to: day) ?? day : day
            return calendar.date(bySettingHour: end.hour, minute: end.minute, second: 0, of: endDay)
        }
    }

    /// What is sent.
    public enum Kind: String, Sendable, Hashable, Codable {
        case weekUnlocked = "week_unlocked"
        case deadlineReminder = "deadline_reminder"
    }

    /// One notification of one week: due from `dueAt`, pointless from `expiresAt` (the
    /// week's deadline) on — a daemon that was down past `dueAt` still sends it before then.
    public struct Notice: Sendable, Hashable {
        public let kind: Kind
        public let week: Int
        /// 0 for `week_unlocked`.
        public let daysBefore: Int
        public let dueAt: Date
        public let expiresAt: Date
    }

    /// The reminders (default 2@18:00, 1@18:00).
    public let reminders: [Reminder]
    /// Quiet hours, if any (default 22:00–07:00 in each student's own zone).
    public let quietHours: QuietHours?
    /// When each coach's daily digest of their queue is due (default 07:00; nil: none).
    public let coachDigest: DailyMoment?

    /// The programme's defaults.
    public static let standard = NotificationSchedule(
        reminders: [Reminder(daysBefore: 2, at: LocalTime(hour: 18, minute: 0)!), Reminder(daysBefore: 1, at: LocalTime(hour: 18, minute: 0)!)],
        quietHours: standardQuietHours)

    /// No push at night: 22:00–07:00, in each student's own zone.
    public static let standardQuietHours = QuietHours(start: LocalTime(hour: 22, minute: 0)!, end: LocalTime(hour: 7, minute: 0)!)

    /// This schedule for one student who chose their own quiet hours (`.some(nil)`: none) or
    /// reminder time (every reminder at that local time).
    public func personal(quietHours own: QuietHours??, reminderTime: LocalTime?) -> NotificationSchedule {
        let quiet: QuietHours? = switch own {
        case .none: quietHours
        case let .some(chosen): chosen
        }
        let own = reminderTime.map { time in self.reminders.map { Reminder(daysBefore: $0.daysBefore, at: time) } } ?? self.reminders
        return NotificationSchedule(reminders: own, quietHours: quiet, coachDigest: coachDigest)
    }

    /// The coach's digest by default: 07:00 programme time.
    public static let standardCoachDigest = DailyMoment(at: LocalTime(hour: 7, minute: 0)!)

    public init(reminders: [Reminder], quietHours: QuietHours?, coachDigest: DailyMoment? = Self.standardCoachDigest) {
        self.reminders = reminders
        self.quietHours = quietHours
        self.coachDigest = coachDigest
    }

    /// The notices of `week` in `calendar` for a student living in `zone` (nil: the
    /// programme's), in due order. Reminders are counted in the student's days and fire at
    /// their local hour, out of their quiet hours, and always before the deadline — which
    /// stays the programme's instant (Friday 23:59 in New York is Saturday 08:59 in Dubai, so
    /// Dubai's "1 day before" is Friday 18:00 Dubai time).
    ///
    /// `deadline` is the student's own when the back office moved it (an extension): the
    /// reminders count back from it instead.
    public func notices(week: Int, calendar: SemesterCalendar, in zone: TimeZone? = nil, deadline moved: Date? = nil) -> [Notice] {
        var local = Calendar(identifier: .gregorian)
        local.timeZone = zone ?? calendar.timeZone
        let deadline = moved ?? calendar.deadline(week: week)
        var notices = [Notice(kind: .weekUnlocked, week: week, daysBefore: 0,
                              dueAt: outOfQuietHours(calendar.unlock(week: week), before: deadline, calendar: local), expiresAt: deadline)]
        let deadlineDay = local.startOfDay(for: deadline)
        for reminder in reminders {
            guard let day = local.date(byAdding: .day, value: -reminder.daysBefore, to: deadlineDay),
                  let at = local.date(bySettingHour: reminder.at.hour, minute: reminder.at.minute, second: 0, of: day),
                  at >= calendar.unlock(week: week), at < deadline else { continue }
            notices.append(Notice(kind: .deadlineReminder, week: week, daysBefore: reminder.daysBefore,
                                  dueAt: outOfQuietHours(at, before: deadline, calendar: local), expiresAt: deadline))
        }
        return notices.sorted { $0.dueAt < $1.dueAt }
    }

    /// `instant`, or when it falls in quiet hours the end of them if that is before
    /// `deadline`, else just before they began (a minute before).
    func outOfQuietHours(_ instant: Date, before deadline: Date, calendar: Calendar) -> Date {
        guard let quiet = quietHours else { return instant }
        let parts = calendar.dateComponents([.hour, .minute], from: instant)
        let minutes = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        guard quiet.contains(minutes: minutes) else { return instant }
        let day = calendar.startOfDay(for: instant)
        // In the evening part of a span that wraps midnight, it ends tomorrow and began today;
        // in the morning part, it ends today and began yesterday.
        let wraps = quiet.start > quiet.end
        let endDay = wraps && minutes >= quiet.start.minutes ? calendar.date(byAdding: .day, value: 1, to: day) ?? day : day
        let startDay = wraps && minutes < quiet.end.minutes ? calendar.date(byAdding: .day, value: -1, to: day) ?? day : day
        if let end = calendar.date(bySettingHour: quiet.end.hour, minute: quiet.end.minute, second: 0, of: endDay), end < deadline {
            return end
        }
        let start = calendar.date(bySettingHour: quiet.start.hour, minute: quiet.start.minute, second: 0, of: startDay) ?? instant
        return start.addingTimeInterval(-60)
    }
}
