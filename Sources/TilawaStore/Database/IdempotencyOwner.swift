import Foundation

/// Whose key space an `Idempotency-Key` belongs to: a student's uploads, a coach's replies, or
/// an operator's back-office writes.
///
/// Stored in the `owner` column of `idempotencyKey`: a student as their id unchanged (the rows
/// written before coaches had keys stay valid, with no rewrite: a key in flight or answered
/// across the upgrade keeps working), a coach as `coach:<id>`, an operator as `ops:<subject>`.
/// Ids are `[A-Za-z0-9_-]` (`Identifier`), so no student id can ever equal a prefixed owner
/// value: the key spaces cannot meet, while the table keeps its one primary key `(owner, key)`.
public enum IdempotencyOwner: Sendable, Hashable {
    case student(String)
    case coach(String)
    case ops(String)

    /// The value of the `owner` column.
    public var storageValue: String {
        switch self {
        case let .student(id): id
        case let .coach(id): "coach:" + id
        case let .ops(subject): "ops:" + subject
        }
    }
}
