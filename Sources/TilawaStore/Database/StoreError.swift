import Foundation

/// Failures of the store that are not the user's doing; each has a stable code.
public enum StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The disk (or the filesystem's quota) is full.
    case storageFull(String)
    /// Reading or writing a file failed.
    case io(String)
    /// A row the operation depends on is missing or contradicts another.
    case internalInconsistency(String)
    /// The operation exists on one storage engine only (SQLite's backups).
    case unsupported(String)
    /// The database server cannot be reached (PostgreSQL down, refused, unreachable).
    case unavailable(String)
    /// The database kept refusing a transaction for colliding with others (PostgreSQL's
    /// serialization failures and deadlocks, tried again for seconds): try again shortly.
    case busy(String)

    /// The stable code (`storage_full`, `io_error`, `internal_error`, `unsupported_engine`,
    /// `database_unavailable`, `database_busy`).
    public var code: String {
        switch self {
        case .storageFull: "storage_full"
        case .io: "io_error"
        case .internalInconsistency: "internal_error"
        case .unsupported: "unsupported_engine"
        case .unavailable: "database_unavailable"
        case .busy: "database_busy"
        }
    }

    public var description: String {
        switch self {
        case let .storageFull(text), let .io(text), let .internalInconsistency(text), let .unsupported(text), let .unavailable(text),
             let .busy(text): text
        }
    }

    /// Maps an `errno` value from a failed file operation.
    static func fromErrno(_ code: Int32, _ what: String) -> StoreError {
        let text = "\(what): \(String(cString: strerror(code)))"
        return code == ENOSPC || code == EDQUOT ? .storageFull(text) : .io(text)
    }
}
