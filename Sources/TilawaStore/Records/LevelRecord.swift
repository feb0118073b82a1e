import Foundation
import GRDB
import TilawaCore

/// A level of the curriculum (each has its own 15 weeks of passages).
public struct LevelRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "level"
    public var id: String
    public var name: String
    /// Order of `levels:` in `program.yaml`: the next level is the one after.
    public var position: Int
    /// The week whose unlock opens the end-of-course assessment.
    public var eocOpensWeek: Int
    /// The end-of-course passage: title, reference, hand-typed Arabic text (older programme
    /// files only), what it covers.
    public var eocTitle: String?
    public var eocPassage: String?
    public var eocArabic: String?
    public var eocCovers: String?
    /// The end-of-course ayah ranges, normalised (`1:1-7; 114:1-6`); nil when the file gave none.
    public var eocAyahs: String?

    /// Creates a record.
    public init(id: String, name: String, position: Int = 0, eocOpensWeek: Int = 14, eocTitle: String? = nil,
                eocPassage: String? = nil, eocArabic: String? = nil, eocCovers: String? = nil, eocAyahs: String? = nil) {
        self.id = id
        self.name = name
        self.position = position
        self.eocOpensWeek = eocOpensWeek
        self.eocTitle = eocTitle
        self.eocPassage = eocPassage
        self.eocArabic = eocArabic
        self.eocCovers = eocCovers
        self.eocAyahs = eocAyahs
    }
}
