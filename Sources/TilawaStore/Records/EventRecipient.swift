/// Who a notification is for (issue "events for coaches"): the student it is about, a coach,
/// or operations.
public enum EventRecipient: Sendable, Hashable {
    case student
    case coach(String)
    case ops

    /// `student`, `coach` or `ops`, as in the payload's `recipient`.
    public var role: String {
        switch self {
        case .student: "student"
        case .coach: "coach"
        case .ops: "ops"
        }
    }
}
