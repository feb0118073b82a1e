import Foundation
import Synchronization

/// Keys whose release failed: the request failed because the database was unavailable, and
/// releasing its key (`abandonIdempotentRequest`) failed for the same reason. Left alone the
/// key would stay in flight until `inFlightTimeout` (minutes), and the phone's retries with it
/// would be 409 `idempotency_key_in_use` all that time. So the release is kept here and tried
/// again — before this process next reads or claims a key, and on the programme's tick — until
/// the database takes it. Each is tried against the engine that claimed it; one still failing
/// after `givingUpAfter` is dropped (its in-flight time is over by then anyway).
enum PendingIdempotencyReleases {
    struct Release: Sendable {
        let owner: String
        let key: String
        let engine: any StoreEngine
        let since: ContinuousClock.Instant
    }

    static let releases = Mutex<[Release]>([])
    static let givingUpAfter = Duration.seconds(3_600)
    /// At most this many are kept (the oldest go first): a bound, not an expected number.
    static let limit = 10_000

    static func add(owner: String, key: String, engine: any StoreEngine) {
        releases.withLock { releases in
            releases.removeAll { $0.owner == owner && $0.key == key }
            releases.append(Release(owner: owner, key: key, engine: engine, since: .now))
            if releases.count > limit { releases.removeFirst(releases.count - limit) }
        }
    }

    static func remove(owner: String, key: String) {
        releases.withLock { $0.removeAll { $0.owner == owner && $0.key == key } }
    }

    static var isEmpty: Bool { releases.withLock { $0.isEmpty } }
}

extension AppDatabase {
    /// The release of an in-flight key (never an answered one).
    static func releaseInFlight(owner: String, key: String) -> @Sendable (SQLSession) throws -> Void {
        { db in
            try db.execute(sql: "DELETE FROM idempotencyKey WHERE owner = ? AND key = ? AND state = ?",
                           arguments: [owner, key, IdempotencyKeyRecord.State.inFlight.rawValue])
        }
    }

    /// Tries the releases that failed before (`PendingIdempotencyReleases`) again; stops at the
    /// first that fails (the database is still away). Returns how many are still waiting.
    @discardableResult
    public func retryPendingIdempotencyReleases() -> Int {
        guard !PendingIdempotencyReleases.isEmpty else { return 0 }
        let waiting = PendingIdempotencyReleases.releases.withLock { releases in
            releases.removeAll { $0.since.duration(to: .now) > PendingIdempotencyReleases.givingUpAfter }
            return releases
        }
        for release in waiting {
            do {
                try release.engine.write(Self.releaseInFlight(owner: release.owner, key: release.key))
                PendingIdempotencyReleases.remove(owner: release.owner, key: release.key)
            } catch {
                break
            }
        }
        return PendingIdempotencyReleases.releases.withLock { $0.count }
    }

    /// `retryPendingIdempotencyReleases` from async code.
    @discardableResult
    public func retryPendingIdempotencyReleases() async -> Int {
        guard !PendingIdempotencyReleases.isEmpty else { return 0 }
        let waiting = PendingIdempotencyReleases.releases.withLock { releases in
            releases.removeAll { $0.since.duration(to: .now) > PendingIdempotencyReleases.givingUpAfter }
            return releases
        }
        for release in waiting {
            do {
                try await release.engine.write(Self.releaseInFlight(owner: release.owner, key: release.key))
                PendingIdempotencyReleases.remove(owner: release.owner, key: release.key)
            } catch {
                break
            }
        }
        return PendingIdempotencyReleases.releases.withLock { $0.count }
    }
}
