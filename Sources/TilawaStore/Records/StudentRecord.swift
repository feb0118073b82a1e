import Foundation
import GRDB
import TilawaCore

/// A student of the programme. Which semester, level and coach they have is not a property
/// of the student but of each `EnrolmentRecord`: a student is enrolled once per semester.
public struct StudentRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "student"
    public var id: String
    public var name: String
    /// `female` or `male` (same-gender coaching); nil when not given.
    public var gender: String? = nil
    /// The student's own IANA zone (reminders, quiet hours and every time in a message to
    /// them); nil: the programme's.
    public var timeZone: String? = nil
    /// Who set `timeZone`: `roster`, `student` or `ops` (on the student's behalf); a roster
    /// import overwrites only its own.
    public var timeZoneSetBy: String? = nil
    /// Push per category (DESIGN §14), all on by default.
    public var pushFeedback = true
    public var pushDeadlines = true
    public var pushAnnouncements = true
    public var pushQuestions = true
    /// The identity provider's `sub` for this student (DESIGN §10); nil when not given.
    public var subject: String? = nil
    /// When the student was erased (DESIGN §12); their rows stay as ids and counts only.
    public var erasedAt: Date? = nil
    /// The student's own quiet hours, `HH:MM-HH:MM` or `none`; nil: the programme's.
    public var quietHours: String? = nil
    /// The student's own local time for deadline reminders, `HH:MM`; nil: the programme's.
    public var reminderTime: String? = nil
    /// students.csv's `date_of_birth`, `YYYY-MM-DD`; nil when not given. A minor's consent to
    /// the recording policy is a guardian's (DESIGN §16).
    public var dateOfBirth: String? = nil

    /// Creates a record.
    public init(id: String, name: String, gender: String? = nil) {
        self.id = id
        self.name = name
        self.gender = gender
    }

    /// The date of birth, when one is known.
    public var birthDate: LocalDate? { dateOfBirth.flatMap { LocalDate($0) } }

    /// The zone messages to this student are written in: their own, else `programme`.
    public func zone(or programme: TimeZone) -> TimeZone {
        timeZone.flatMap(TimeZone.init(identifier:)) ?? programme
    }

    /// The quiet hours in effect for this student: their own (none when they chose `none`),
    /// else `programme`'s.
    public func quietHours(or programme: NotificationSchedule.QuietHours?) -> NotificationSchedule.QuietHours? {
        switch quietHours {
        case nil: programme
        case "none"?: nil
        case let text?: NotificationSchedule.QuietHours(parsing: text) ?? programme
        }
    }

    /// `schedule` as this student chose it: their quiet hours and reminder time.
    public func schedule(_ schedule: NotificationSchedule) -> NotificationSchedule {
        guard quietHours != nil || reminderTime != nil else { return schedule }
        return schedule.personal(quietHours: quietHours == nil ? .none : .some(self.quietHours(or: nil)),
                                 reminderTime: reminderTime.flatMap { LocalTime($0) })
    }

    /// Whether the student wants pushes of `category` (nil: an event of no category, always).
    public func wantsPush(_ category: PushCategory?) -> Bool {
        switch category {
        case nil: true
        case .feedback: pushFeedback
        case .deadlines: pushDeadlines
        case .announcements: pushAnnouncements
        case .questions: pushQuestions
        }
    }

    public mutating func setPush(_ category: PushCategory, _ on: Bool) {
        switch category {
        case .feedback: pushFeedback = on
        case .deadlines: pushDeadlines = on
        case .announcements: pushAnnouncements = on
        case .questions: pushQuestions = on
        }
    }
}

/// The notification categories a student may turn off (DESIGN §14). Refusals and lost
/// recordings belong to none: a student always hears that a recording did not count.
public enum PushCategory: String, Sendable, CaseIterable, Codable {
    case feedback, deadlines, announcements, questions
}
