import Foundation
import GRDB
import TilawaCore

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
