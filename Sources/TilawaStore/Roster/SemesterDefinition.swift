import TilawaCore

/// One semester from `config/program.yaml`: its id, display name and week calendar.
public struct SemesterDefinition: Sendable, Equatable {
    /// The semester id students are enrolled in (`semester_id` in `config/students.csv`).
    public let id: Identifier
    /// The display name, e.g. "Fall 2026"; one line, never empty.
    public let name: String
    /// The local date week 1 unlocks on; always a Saturday in the programme time zone.
    public let start: LocalDate
    /// The weeks as instants, built from `start`, the file's `time_zone` and `catch_up_grace_days`.
    public let calendar: SemesterCalendar

    /// A semester whose `calendar` is already validated (it carries the start date again).
    public init(id: Identifier, name: String, start: LocalDate, calendar: SemesterCalendar) {
        self.id = id
        self.name = name
        self.start = start
        self.calendar = calendar
    }
}
