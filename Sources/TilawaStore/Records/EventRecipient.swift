/// Who a notification is for (issue "events for coaches"): the student it is about, a coach,
/// or operations.
public enum EventRecipient: Sendable, Hashable {
    case student
    case coach(String)
    case ops

    /// The coach's id for `coach`; nil otherwise.
    public var id: String? {
        if case let .coach(coachId) = self { coachId } else { nil }
    }

    /// `student`, `coach` or `ops`, as in the payload's `recipient`.
    public var role: String {
        switch self {
        case .student: "student"
        case .coach: "coach"
        case .ops: "ops"
        }
    }
}
