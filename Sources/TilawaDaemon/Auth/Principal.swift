import TilawaCore

/// The caller a verified token names: its `sub` and `role` claims.
///
/// The subject always matches `[A-Za-z0-9_-]{1,64}` (the `Identifier` rule), whatever the
/// role, so it is safe to compare with an id from a path and to log.
public struct Principal: Sendable, Hashable, CustomStringConvertible {
    /// The `sub` claim, validated: a student or coach id, or an operator's name
    /// (`ops` for `tilawa token issue --ops`).
    public let identifier: Identifier
    /// The `role` claim.
    public let role: Role

    /// A principal for a validated id.
    public init(identifier: Identifier, role: Role) {
        self.identifier = identifier
        self.role = role
    }

    /// A principal; nil when `subject` is not a valid id.
    public init?(subject: String, role: Role) {
        guard let identifier = Identifier(rawValue: subject) else { return nil }
        self.init(identifier: identifier, role: role)
    }

    /// The `sub` claim as text.
    public var subject: String { identifier.rawValue }

    /// `role:subject`, e.g. `student:S1001`, for logs.
    public var description: String { "\(role.rawValue):\(subject)" }
}
