/// Where a semester is at an instant (DESIGN §4 timeline `phase`).
///
/// Raw values are the stable codes sent in JSON.
public enum SemesterPhase: String, Sendable, Hashable, Codable, CaseIterable {
    /// Before week 1 unlocks.
    case preSemester = "pre_semester"
    /// From week 1's unlock to the last week's deadline (inclusive).
    case active
    /// After the last deadline, until the semester closes: catch-up and end-of-course only.
    case eoc
    /// At and after `closesAt`: nothing more is accepted.
    case closed
}
