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

    /// Rows re-admitted as new students (`allowErased`), in file order.
    public var readmitted: [ReadmittedRow] = []

    /// Rows whose subject is a student the identity provider provisioned (SCIM) under another
    /// id: imported into that student, in file order.
    public var joined: [JoinedRow] = []

    /// A students.csv row the import left out, and why it may not come back.
    public struct SkippedRow: Sendable, Equatable {
        public var id: String
        public var line: Int
        /// The erased student whose sign-in subject the row carries under another id; nil when
        /// the row's own id was erased.
        public var subjectOf: String? = nil
    }

    /// A students.csv row imported as a new student although it named an erased one.
    public struct ReadmittedRow: Sendable, Equatable {
        public var id: String
        public var line: Int
        /// The erased id the row named (its own, or the one whose subject it carries).
        public var erasedId: String
        /// Where the old student's remaining records went (`ID-erased-N`), when the id was reused.
        public var formerRecords: String?
    }

    /// A students.csv row imported into the provisioned student its subject names.
    public struct JoinedRow: Sendable, Equatable {
        public var id: String
        public var line: Int
        /// The provisioned student's id (`P100001`), which the row's facts went to.
        public var studentId: String
    }

    public init() {}
}
