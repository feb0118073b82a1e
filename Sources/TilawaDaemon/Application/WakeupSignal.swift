import Foundation
import Synchronization

/// Wakes sleeping workers when there is new work, so a queued job starts at once instead of
/// at the next poll. Polling remains the safety net (jobs queued by another process).
public final class WakeupSignal: Sendable {
    private struct State {
        var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]
        /// Waits that timed out before their continuation was registered.
        var expired: Set<UUID> = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Wakes every waiting worker.
    public func signal() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in woken { waiter.resume() }
    }

    /// Waits until `signal()` or until `timeout` passes, whichever is first.
    public func wait(timeout: Duration) async {
        let id = UUID()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                // Ends the wait on timeout and on cancellation (shutdown). When the signal came
                // first, the wait is already over and this only leaves a mark, removed below.
                try? await Task.sleep(for: timeout)
                expire(id)
            }
            group.addTask { [self] in
                await withCheckedContinuation { continuation in register(id, continuation) }
            }
            await group.next()
            group.cancelAll()
        }
        // A sleep that ended just as a signal came may have left a mark; drop it.
        _ = state.withLock { $0.expired.remove(id) }
    }

    private func register(_ id: UUID, _ continuation: CheckedContinuation<Void, Never>) {
        let resumeNow = state.withLock { state -> Bool in
            if state.expired.remove(id) != nil { return true }
            state.waiters[id] = continuation
            return false
        }
        if resumeNow { continuation.resume() }
    }

    private func expire(_ id: UUID) {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let continuation = state.waiters.removeValue(forKey: id) { return continuation }
            state.expired.insert(id)
            return nil
        }
        continuation?.resume()
    }
}
