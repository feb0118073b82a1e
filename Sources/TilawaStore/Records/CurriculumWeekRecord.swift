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
    /// The passage's ayah ranges as `program.yaml` gives them, normalised (`1:1-7; 114:1-6`);
    /// nil when the file gave none. The text of each ayah comes from the embedded Quran text.
    public var ayahs: String?

    /// Creates a record.
    public init(levelId: String, week: Int, title: String, passage: String, ayahs: String? = nil) {
        self.levelId = levelId
        self.week = week
        self.title = title
        self.passage = passage
        self.ayahs = ayahs
    }
}
