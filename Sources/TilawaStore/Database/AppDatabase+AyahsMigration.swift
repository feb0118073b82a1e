import GRDB

extension AppDatabase {
    /// The migration "curriculum: ayahs": each week of a level and each level's end-of-course
    /// assessment may name the ayahs of its passage. Never edited once landed.
    ///
    /// Stored as the ranges, normalised (`1:1-7; 114:1-6`), not as text: the Arabic of each
    /// ayah comes from the Quran text embedded in the binary, the one copy there is. Rows
    /// from before it have none (null) until the programme file is imported again.
    static func migrateAyahs(_ db: Database) throws {
        try db.alter(table: "curriculumWeek") { t in
            t.add(column: "ayahs", .text)
        }
        try db.alter(table: "level") { t in
            t.add(column: "eocAyahs", .text)
        }
    }
}
