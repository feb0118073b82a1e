import Foundation
import Logging
import ServiceLifecycle
import TilawaStore

/// Carries out the students' erasure requests once due (DESIGN §16): every `interval` (a
/// programme minute), each request pending past its due instant is erased exactly as `tilawa
/// erase` erases — forced, audited with the actor "erasure request" — and its files removed
/// after the commit. Every node runs it and none leads: each erasure is one transaction that
/// checks the request is still pending and due, and takes it away with the student's data, so
/// of two nodes at the same request the second finds nothing (SQLite's one writer; PostgreSQL's
/// serializable transactions, one of which is run again).
public struct ErasureRequestService: Service {
    let runtime: TilawaRuntime
    let interval: Duration
    let logger: Logger

    public init(runtime: TilawaRuntime, interval: Duration = .seconds(60), logger: Logger) {
        self.runtime = runtime
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                _ = try await Self.carryOutDueErasures(runtime: runtime, logger: logger)
            } catch {
                // Tried again at the next turn; `tilawa status` warns once one is a day late.
                logger.error("erasure requests: carrying out failed", metadata: ["error": "\(error)"])
            }
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return
            }
        }
    }

    /// One turn: every request due at the programme's `now` carried out (one transaction each),
    /// the files of each removed once it committed. Returns what was erased.
    public static func carryOutDueErasures(runtime: TilawaRuntime, logger: Logger) async throws -> [Erasure] {
        let now = runtime.clock()
        var erased: [Erasure] = []
        for studentId in try await runtime.database.dueErasureRequests(now: now) {
            guard let erasure = try await runtime.database.carryOutErasureRequest(studentId: studentId, now: now) else { continue }
            let store = runtime.stateDirectory.artifactStore
            let files = erasure.files
            // Unlinking (or deleting from an S3 store) blocks: a thread of its own, not the pool's.
            try await OwnThread.run { for path in files { store.remove(path) } }
            logger.notice("erasure request carried out", metadata: [
                "student": "\(runtime.pseudonyms.student(studentId))", "recordings": "\(erasure.recordings)", "files": "\(files.count)",
            ])
            erased.append(erasure)
        }
        return erased
    }
}
