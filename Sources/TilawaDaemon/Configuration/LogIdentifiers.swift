/// How the log names a student, a coach or an identity provider's subject (`log.ids`).
public enum LogIdentifiers: String, Sendable, Hashable, CaseIterable {
    /// A keyed pseudonym, the same on every node of the installation (`LogPseudonyms`):
    /// `s_3f9a0c1d2e4b` for a student, `c_…` for a coach, `u_…` for a subject.
    case pseudonym
    /// The id itself.
    case clear
}
