import TilawaQuran

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
    /// The level's end-of-course assessment.
    public let eoc: EOC

    /// The `eoc:` block of a level: when the assessment opens and what is recited.
    public struct EOC: Sendable, Equatable {
        /// The week whose unlock opens it (default 14).
        public var opensWeek: Int = 14
        /// A title, e.g. "Juz Amma review".
        public var title: String?
        /// The reference to recite, e.g. "An-Naba 78:1-16".
        public var passage: String?
        /// The ayahs to recite (`ayahs: "1:1-7; 114:1-6"`), checked against the Quran text;
        /// empty when the file gives none.
        public var ayahs: [AyahRange]
        /// Hand-typed Arabic text (`arabic:`), read from files written before `ayahs` existed
        /// and served as the timeline's deprecated `passage.arabic`; `ayahs` replaces it.
        public var arabic: String?
        /// What it covers, e.g. "Weeks 1–13: the last 13 surahs".
        public var covers: String?

        public init(opensWeek: Int = 14, title: String? = nil, passage: String? = nil, ayahs: [AyahRange] = [],
                    arabic: String? = nil, covers: String? = nil) {
            self.opensWeek = opensWeek
            self.title = title
            self.passage = passage
            self.ayahs = ayahs
            self.arabic = arabic
            self.covers = covers
        }
    }

    /// A level as read from the file.
    public init(id: String, name: String, weeks: [WeekDefinition], eoc: EOC = EOC()) {
        self.id = id
        self.name = name
        self.weeks = weeks
        self.eoc = eoc
    }
}
