import Foundation

/// Why `TokenAuthority.issue` refuses to mint a token.
public enum TokenIssueError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The subject is not an id (`[A-Za-z0-9_-]{1,64}`).
    case invalidSubject(String)
    /// The lifetime is not at least one second (or is not finite, or absurdly long).
    case invalidLifetime(TimeInterval)

    /// `invalid_identifier` or `invalid_ttl`.
    public var code: String {
        switch self {
        case .invalidSubject: "invalid_identifier"
        case .invalidLifetime: "invalid_ttl"
        }
    }

    /// One line saying what is wrong.
    public var description: String {
        switch self {
        case let .invalidSubject(subject):
            "\(subject.debugDescription.prefix(80)) is not a valid id: use 1 to 64 of A-Z a-z 0-9 _ -"
        case let .invalidLifetime(ttl):
            "a token lifetime of \(ttl) seconds is not allowed"
        }
    }
}
