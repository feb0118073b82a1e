/// Who a token speaks for (DESIGN §4): the `role` claim of every token.
///
/// The raw values are the claim's wire values and are stable.
public enum Role: String, Sendable, Hashable, CaseIterable, Codable {
    /// A student: reaches only their own data.
    case student
    /// A Quran Coach: reaches the students assigned to them.
    case coach
    /// Operations: reads everything.
    case ops
}
