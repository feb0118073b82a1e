import Foundation
import GRDB
import TilawaCore

/// What a roster import wrote.
public struct RosterImportSummary: Sendable, Equatable {
    public var semesters = 0
    public var coaches = 0
    public var levels = 0
    public var curriculumWeeks = 0
    public var students = 0
    /// Rows naming a student who was erased, skipped (the erasure ledger is final), in file order.
    public var skippedErased: [SkippedRow] = []

    /// A students.csv row the import left out, and why it may not come back.
    public struct SkippedRow: Sendable, Equatable {
        public var id: String
        public var line: Int
    }

    public init() {}
}
