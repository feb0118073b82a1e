/// Keeps the earliest `RosterError` by line while independent parts of a file are checked.
///
/// Parts that do not depend on each other (the top-level sections, the fields of one
/// item) are all checked, and the problem on the lowest line wins, so the report is the
/// first problem in file order whatever order the keys were written in. Ties keep the
/// problem recorded first.
struct FirstProblem {
    private(set) var first: RosterError?

    /// Records `error` if it is earlier than the one kept.
    mutating func record(_ error: RosterError) {
        guard let kept = first else {
            first = error
            return
        }
        if (error.line ?? Int.max) < (kept.line ?? Int.max) {
            first = error
        }
    }

    /// Runs `body`, recording its error; nil when it failed.
    @discardableResult
    mutating func attempt<T>(_ body: () throws(RosterError) -> T) -> T? {
        do throws(RosterError) {
            return try body()
        } catch {
            record(error)
            return nil
        }
    }

    /// Throws the kept problem, if any.
    func throwIfAny() throws(RosterError) {
        if let first { throw first }
    }
}
