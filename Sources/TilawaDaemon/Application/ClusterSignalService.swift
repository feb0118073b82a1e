import Foundation
import Logging
import ServiceLifecycle
import TilawaStore

/// Hears what other nodes of a shared database signal (PostgreSQL's LISTEN/NOTIFY, DESIGN §13):
/// a job queued or an event recorded anywhere wakes this node's encode workers and webhook
/// notifier at once (their poll stays, slower, as the fallback); an upload whose client
/// reconnected to another node is let go here. On SQLite there is one process, which wakes
/// its own workers: the service only waits for the shutdown.
public struct ClusterSignalService: Service {
    let database: AppDatabase
    let wakeup: WakeupSignal
    let uploadLocks: UploadLocks
    let logger: Logger

    init(database: AppDatabase, wakeup: WakeupSignal, uploadLocks: UploadLocks, logger: Logger) {
        self.database = database
        self.wakeup = wakeup
        self.uploadLocks = uploadLocks
        self.logger = logger
    }

    public func run() async throws {
        let wakeup = wakeup, uploadLocks = uploadLocks, logger = logger
        await cancelWhenGracefulShutdown {
            await database.engine.listen(to: StoreSignal.allCases) { signal, payload in
                switch signal {
                case .jobs?, .outbox?, nil:
                    wakeup.signal()
                case .uploadRelease?:
                    logger.debug("asked to let go of an upload", metadata: ["upload": "\(payload)"])
                    uploadLocks.askToLetGo(payload)
                }
            }
        }
    }
}

/// Says in the database, every `AppDatabase.nodeHeartbeat`, that this daemon is alive, for
/// `status`' cluster view; forgets it when the daemon stops cleanly. (A node that dies stays
/// listed, as not seen lately, for an hour.)
public struct NodeHeartbeatService: Service {
    let database: AppDatabase
    let startedAt: Date
    let logger: Logger

    init(database: AppDatabase, startedAt: Date = Date(), logger: Logger) {
        self.database = database
        self.startedAt = startedAt
        self.logger = logger
    }

    public func run() async throws {
        let node = EncodeJobRunner.workerIdentity
        var failing = false
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            do {
                try await database.recordNodeSeen(id: node, startedAt: startedAt)
                if failing { logger.info("node heartbeat recorded again") }
                failing = false
            } catch {
                if !failing { logger.warning("node heartbeat not recorded", metadata: ["error": "\(error)"]) }
                failing = true
            }
            await cancelWhenGracefulShutdown { try? await Task.sleep(for: .seconds(AppDatabase.nodeHeartbeat)) }
        }
        try? await database.forgetNode(id: node)
    }
}
