import Foundation

/// The contents of `config/program.yaml`: time zone, semesters, coaches and curriculum (DESIGN §6).
///
/// Build one only with `parse(_:source:)`, which checks everything that can be checked
/// within the file: ids, duplicates, Saturday starts, complete curricula. References
/// between files (a student's coach, level, semester) are `RosterValidator`'s job.
/// Every section is optional, so one import may add only a new semester, but a file with
/// none of `semesters`, `coaches` and `levels` is refused.
public struct ProgramFile: Sendable, Equatable {
    /// The zone used when the file has no `time_zone` (DESIGN §1).
    public static let defaultTimeZoneIdentifier = "America/New_York"
    /// The grace used when the file has no `catch_up_grace_days` (DESIGN §1).
    public static let defaultCatchUpGraceDays = 14
    /// Weeks in a semester (DESIGN §1); every level defines exactly these, numbered 1…15.
    public static let weekCount = 15

    /// The programme time zone (`time_zone`) every semester calendar uses.
    public let timeZone: TimeZone
    /// Days after the last week during which catch-up is still accepted (`catch_up_grace_days`, ≥ 0).
    public let catchUpGraceDays: Int
    /// The semesters in file order; ids are unique within the file.
    public let semesters: [SemesterDefinition]
    /// The coaches in file order; ids are unique within the file.
    public let coaches: [CoachDefinition]
    /// The levels in file order; ids are unique within the file, each has all 15 weeks.
    public let levels: [LevelDefinition]
    /// `same_gender_coaching: true`: a placement or roster row whose student and coach both
    /// have a known gender must have the same one.
    public var sameGenderCoaching = false

    /// A programme assembled from already-validated parts; `parse(_:source:)` is the way in from a file.
    public init(
        timeZone: TimeZone,
        catchUpGraceDays: Int,
        semesters: [SemesterDefinition],
        coaches: [CoachDefinition],
        levels: [LevelDefinition]
    ) {
        self.timeZone = timeZone
        self.catchUpGraceDays = catchUpGraceDays
        self.semesters = semesters
        self.coaches = coaches
        self.levels = levels
    }
}
