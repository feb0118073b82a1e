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

    public init() {}
}
