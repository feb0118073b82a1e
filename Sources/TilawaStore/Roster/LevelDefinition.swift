/// One level of the curriculum from `config/program.yaml`: what is recited in each week.
public struct LevelDefinition: Sendable, Equatable {
    /// The level id (`level` in `config/students.csv`), e.g. "L1"; it satisfies the same
    /// `[A-Za-z0-9_-]{1,64}` rule as an `Identifier`.
    public let id: String
    /// The display name, e.g. "Foundations"; one line, never empty.
    public let name: String
    /// Exactly one entry per week of the semester, sorted by week number (1…15),
    /// whatever order the file listed them in.
    public let weeks: [WeekDefinition]

    /// A level as read from the file.
    public init(id: String, name: String, weeks: [WeekDefinition]) {
        self.id = id
        self.name = name
        self.weeks = weeks
    }
}
