import GRDB

extension AppDatabase {
    /// The migration "submissions: ayah markers". Never edited once landed.
    ///
    /// `speechSegments` keeps the speech detector's stretches of speech from the pass that
    /// judged the upload (JSON `[[start, end], …]`, at most a few floats a second), so the
    /// encode job places the ayahs without running the detector again; `ayahMarkers` holds
    /// what it found (`AyahMarkers`, JSON). Rows from before it have neither (null).
    static func migrateAyahMarkers(_ db: Database) throws {
        try db.alter(table: "submission") { t in
            t.add(column: "speechSegments", .jsonText)
            t.add(column: "ayahMarkers", .jsonText)
        }
    }
}
