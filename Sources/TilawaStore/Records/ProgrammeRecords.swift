import Foundation
import GRDB
import TilawaCore

/// A semester: its start (a local Saturday) and the calendar rules derived from it.
public struct SemesterRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "semester"
    public var id: String
    public var name: String
    /// `YYYY-MM-DD`, a Saturday in `timeZone`.
    public var startDate: String
    /// IANA zone identifier of the programme.
    public var timeZone: String
    public var weekCount: Int
    public var catchUpGraceDays: Int

    /// Creates a record.
    public init(id: String, name: String, startDate: String, timeZone: String, weekCount: Int, catchUpGraceDays: Int) {
        self.id = id
        self.name = name
        self.startDate = startDate
        self.timeZone = timeZone
        self.weekCount = weekCount
        self.catchUpGraceDays = catchUpGraceDays
    }

    /// The week calendar; throws when the stored values no longer make a valid calendar.
    public func calendar() throws -> SemesterCalendar {
        guard let start = LocalDate(startDate) else {
            throw StoreError.internalInconsistency("semester \(id) has an invalid start date \(startDate)")
        }
        return try SemesterCalendar(
            start: start, timeZoneIdentifier: timeZone, weekCount: weekCount, catchUpGraceDays: catchUpGraceDays)
    }
}

/// A Quran Coach.
public struct CoachRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "coach"
    public var id: String
    public var name: String
    public var email: String?

    /// Creates a record.
    public init(id: String, name: String, email: String?) {
        self.id = id
        self.name = name
        self.email = email
    }
}

/// A level of the curriculum (each has its own 15 weeks of passages).
public struct LevelRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "level"
    public var id: String
    public var name: String

    /// Creates a record.
    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// One week of a level's curriculum: what the student recites.
public struct CurriculumWeekRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "curriculumWeek"
    public var levelId: String
    public var week: Int
    public var title: String
    public var passage: String

    /// Creates a record.
    public init(levelId: String, week: Int, title: String, passage: String) {
        self.levelId = levelId
        self.week = week
        self.title = title
        self.passage = passage
    }
}

/// A student, with the level, coach and semester they belong to.
public struct StudentRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "student"
    public var id: String
    public var name: String
    public var levelId: String
    public var coachId: String
    public var semesterId: String

    /// Creates a record.
    public init(id: String, name: String, levelId: String, coachId: String, semesterId: String) {
        self.id = id
        self.name = name
        self.levelId = levelId
        self.coachId = coachId
        self.semesterId = semesterId
    }
}
