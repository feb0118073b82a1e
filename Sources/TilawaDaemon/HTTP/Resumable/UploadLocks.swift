import Synchronization

/// One request at a time per resumable upload: an append, a completion or a termination
/// holds its upload's id; another request for it waits briefly, then is told to retry.
///
/// `Sendable` on its own: the set of held ids lives in a `Mutex`.
final class UploadLocks: Sendable {
    private let held = Mutex<Set<String>>([])

    /// Runs `body` holding `id`; nil when another request held it for all of `patience`
    /// (a client that lost its connection mid-append retries while the server has not yet
    /// noticed: a short wait covers that).
    func withLock<T>(_ id: String, patience: Duration = .seconds(3), _ body: () async throws -> T) async throws -> T? {
        let deadline = ContinuousClock.now + patience
        while !held.withLock({ $0.insert(id).inserted }) {
            if ContinuousClock.now >= deadline { return nil }
            try await Task.sleep(for: .milliseconds(50))
        }
        defer { _ = held.withLock { $0.remove(id) } }
        return try await body()
    }
}
