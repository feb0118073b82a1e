import TilawaQuran

/// What one week of a level asks the student to recite (timeline `title`, `passage` and `ayahs`, DESIGN §4, §9).
public struct WeekDefinition: Sendable, Equatable {
    /// The week number, 1…15.
    public let week: Int
    /// A short title shown in notifications ("Week 8: An-Naba"); one line, never empty.
    public let title: String
    /// The passage to recite, e.g. "An-Naba 78:1-16"; free text, one line, never empty.
    public let passage: String
    /// The ayahs of the passage (`ayahs: "78:1-16"`), checked against the Quran text; empty
    /// when the file gives none (files written before `ayahs` existed).
    public let ayahs: [AyahRange]

    /// A week as read from the file.
    public init(week: Int, title: String, passage: String, ayahs: [AyahRange] = []) {
        self.week = week
        self.title = title
        self.passage = passage
        self.ayahs = ayahs
    }
}
