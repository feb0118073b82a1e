import Synchronization

/// One request at a time per resumable upload: an append, a completion, a termination or an
/// offset read holds its upload's id. A newcomer waits; after `grace` it asks the holder to
/// let go — a phone that lost its network leaves a half-open append behind, and its
/// reconnection must not wait for that append's body deadline, while an append whose client
/// closed cleanly is let finish reading what already arrived — and past `patience` it is told
/// to retry. The patience is generous (15 s): once asked, the holder still writes, fsyncs and
/// records what it received, which a busy disk can make take seconds.
///
/// Letting go means the holder's input is shut (`preempt`): its body ends, what arrived is
/// recorded as usual, and it releases the id. A holder with nothing to cut (a judgement) has
/// no `preempt` and is waited for.
///
/// `Sendable` on its own: the table of holders lives in a `Mutex`.
final class UploadLocks: Sendable {
    private struct Holder: Sendable {
        let token: UInt64
        let preempt: (@Sendable () -> Void)?
    }

    private let held = Mutex<(holders: [String: Holder], next: UInt64)>(([:], 0))

    /// Runs `body` holding `id`; nil when another request held it for all of `patience`.
    /// `preempt` is how another request may make this one let go (nil: it may not).
    func withLock<T>(_ id: String, grace: Duration = .seconds(1), patience: Duration = .seconds(15), preempt: (@Sendable () -> Void)? = nil,
                     _ body: () async throws -> T) async throws -> T? {
        let asking = ContinuousClock.now + grace
        let deadline = ContinuousClock.now + patience
        var asked = false
        while true {
            let outcome = held.withLock { state -> (token: UInt64?, holder: Holder?) in
                if let holder = state.holders[id] { return (nil, holder) }
                state.next += 1
                state.holders[id] = Holder(token: state.next, preempt: preempt)
                return (state.next, nil)
            }
            if let token = outcome.token {
                defer {
                    held.withLock { state in
                        if state.holders[id]?.token == token { state.holders[id] = nil }
                    }
                }
                return try await body()
            }
            if !asked, ContinuousClock.now >= asking {
                asked = true
                outcome.holder?.preempt?()
            }
            if ContinuousClock.now >= deadline { return nil }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Asks the request holding `id` to let go, as a newcomer here would after its grace: a
    /// node whose client reconnected to another node asks this way (`StoreSignal.uploadRelease`).
    func askToLetGo(_ id: String) {
        held.withLock { $0.holders[id]?.preempt }?()
    }

    /// Whether a request holds `id` now.
    func isHeld(_ id: String) -> Bool {
        held.withLock { $0.holders[id] != nil }
    }
}
