import Foundation
import HTTPTypes
import TilawaStore

/// Reaching an upload: who may see it, and the hold one request (on one node) keeps on it.
extension ResumableUploads {
    /// The upload at the path's `id` when the caller is its student; 404 otherwise, and for an
    /// upload past its expiry (deleted there and then, with its bytes).
    func visibleUpload(_ context: TilawaRequestContext) async throws -> ResumableUploadRecord {
        let principal = try context.requirePrincipal()
        let id = try api.identifier("id", in: context)
        guard let upload = try await database.resumableUpload(id: id), principal.role == .student,
              principal.subject == upload.studentId else {
            throw APIProblem.notFound("upload with this id")
        }
        if upload.expiresAt <= api.now, upload.state != .completing {
            try await sweepExpired(now: api.now)
            throw APIProblem.notFound("upload with this id (it expired)")
        }
        return upload
    }

    /// Runs `body` as the only request working on `id`; 423 when another holds it too long.
    /// An append passes its request's context: a later request for the same upload (the
    /// client reconnected) shuts that append's input instead of waiting for its deadline.
    func exclusively<T>(_ id: String, appending context: TilawaRequestContext? = nil, _ body: () async throws -> T) async throws -> T {
        let preempt: (@Sendable () -> Void)? = context.map { context in { @Sendable in context.closeInput() } }
        guard let result = try await locks.withLock(id, preempt: preempt, { try await acrossNodes(id, body) }) else {
            throw Self.busy
        }
        return result
    }

    static let busy = APIProblem(.init(code: 423, reasonPhrase: "Locked"), code: "upload_busy",
                                 detail: "Another request is writing to this upload; ask for its offset again in a moment.",
                                 headers: [.retryAfter: "1"])

    /// Runs `body` holding upload `id` among the nodes of a shared database (one process on
    /// SQLite holds it with the local lock alone). Another node's hold is asked to let go after
    /// a second, as a request here would be (`StoreSignal.uploadRelease`); past 15 s the
    /// request is told to retry. The hold lasts `uploadHoldDuration` on the wall clock and is
    /// renewed every third of it while `body` runs, so a node that dies gives it up soon after.
    /// It is not what keeps bytes exact — a node that loses it still cannot record an offset
    /// another node moved (`recordUploadProgress` compares and sets) — it keeps two nodes from
    /// receiving the same bytes at once.
    private func acrossNodes<T>(_ id: String, _ body: () async throws -> T) async throws -> T {
        let database = database
        guard database.engine.isShared else { return try await body() }
        let node = EncodeJobRunner.workerIdentity
        let asking = ContinuousClock.now + .seconds(1), deadline = ContinuousClock.now + .seconds(15)
        var asked = false
        while case let .heldElsewhere(holder) = try await database.holdUpload(id: id, holder: node, until: Date() + AppDatabase.uploadHoldDuration) {
            // A process of this host that is gone (killed, and this daemon started in its
            // place) holds it: void now, not when its hold runs out.
            if !EncodeJobRunner.isAlive(holder),
               try await database.takeOverUpload(id: id, from: holder, holder: node, until: Date() + AppDatabase.uploadHoldDuration) {
                break
            }
            if !asked, ContinuousClock.now >= asking {
                asked = true
                try? await database.engine.send(.uploadRelease, payload: id)
            }
            if ContinuousClock.now >= deadline { throw Self.busy }
            try await Task.sleep(for: .milliseconds(100))
        }
        let keeper = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(AppDatabase.uploadHoldDuration / 3))
                if Task.isCancelled { break }
                _ = try? await database.holdUpload(id: id, holder: node, until: Date() + AppDatabase.uploadHoldDuration)
            }
        }
        defer { keeper.cancel() }
        do {
            let result = try await body()
            try? await database.releaseUpload(id: id, holder: node)
            return result
        } catch {
            try? await database.releaseUpload(id: id, holder: node)
            throw error
        }
    }
}
