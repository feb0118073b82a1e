import GRDB

extension StoreError {
    /// Any failure of an operation of the store, as the store's own error: a `StoreError` as it
    /// is; SQLite's writers waiting out their timeout (`SQLITE_BUSY`, `SQLITE_LOCKED`) as
    /// `busy`, its disk full as `storageFull`; anything else as an internal error, saying
    /// `what` was being done.
    public init(_ error: any Error, while what: String) {
        switch error {
        case let error as StoreError:
            self = error
        case let error as DatabaseError where [.SQLITE_BUSY, .SQLITE_LOCKED].contains(error.resultCode):
            self = .busy("SQLite stayed busy while \(what): \(error)")
        case let error as DatabaseError where error.resultCode == .SQLITE_FULL:
            self = .storageFull("the database's disk is full while \(what): \(error)")
        default:
            self = .internalInconsistency("\(what) failed: \(error)")
        }
    }
}
