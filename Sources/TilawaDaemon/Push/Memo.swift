import Synchronization

/// The last few answers of a pure function, kept so that the sends of one event to thousands
/// of devices (a week's unlock, an announcement) work its payload out once, not once each.
///
/// Only for functions whose answer depends on nothing but the key: a hit is the answer the
/// function would give again. At `capacity` keys it starts afresh (the sends of one claim
/// share a handful of events; a cache that only grows would keep every event ever pushed).
final class Memo<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let entries = Mutex<[Key: Value]>([:])
    private let capacity: Int

    init(capacity: Int = 64) {
        self.capacity = capacity
    }

    /// `make()`'s answer for `key`, from the memo when it has one. `make` runs outside the
    /// lock: two sends asking at once may both make it, and keep the same answer.
    func value(for key: Key, _ make: () throws -> Value) rethrows -> Value {
        if let known = entries.withLock({ $0[key] }) { return known }
        let made = try make()
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = made
        }
        return made
    }

    /// How many answers are kept (for the tests).
    var count: Int { entries.withLock { $0.count } }
}
