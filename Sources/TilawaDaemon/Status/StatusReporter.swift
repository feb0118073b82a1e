import Foundation
import Logging
import GRDB
#if canImport(Glibc)
import Glibc
#endif
import TilawaPostgres
import TilawaStore

/// Builds the operations report (DESIGN §7) from the state directory, with or without a
/// running daemon.
///
/// From the command line (`report(now:)`) it opens the database read-only — a WAL reader
/// never blocks the daemon's writers — without migrating or creating anything, and asks
/// `GET /readyz` with a deadline of a second. Inside the daemon (`GET /v1/status`) it reads
/// through the daemon's own database and describes the daemon from its own knowledge.
///
/// Nothing here throws: what cannot be read becomes an UNKNOWN check, and a state
/// directory or database that does not exist yet is an empty installation.
public struct StatusReporter: Sendable {
    /// The installation: state directory, drop folder, daemon address, feedback due time.
    public let configuration: TilawaConfiguration
    /// When checks turn WARNING or CRITICAL.
    public let thresholds: StatusThresholds
    /// Whether the daemon should be running (`--expect-running`): down is then CRITICAL, not WARNING.
    public let expectRunning: Bool

    /// A reporter for the installation `configuration` describes.
    public init(configuration: TilawaConfiguration, thresholds: StatusThresholds = StatusThresholds(), expectRunning: Bool = false) {
        self.configuration = configuration
        self.thresholds = thresholds
        self.expectRunning = expectRunning
    }

    var stateDirectory: StateDirectory { StateDirectory(path: configuration.stateDirectory) }

    /// The report as `tilawa status` sees it: the database opened read-only, the daemon asked
    /// over HTTP (`probe`, by default `http.host`:`http.port`).
    public func report(now: Date, probe: DaemonProbe? = nil) async -> StatusReport {
        // The daemon is asked while the database is read: a hung daemon costs its deadline once.
        let probe = probe ?? DaemonProbe(http: configuration.http)
        async let daemon = probe.probe(expectRunning: expectRunning)
        let directory = Self.access(directory: stateDirectory.root.path)
        let path = stateDirectory.databasePath
        let database: StatusAccess
        var facts: StatusFacts?
        if let location = configuration.database.postgres {
            // The server's database, read as it is (no migration), over one connection.
            do {
                let store = PostgresStore(location: location, password: try configuration.database.password(), maximumConnections: 1,
                                          logger: Logger(label: "tilawa.status"))
                defer { store.close() }
                facts = try await AppDatabase(engine: store).statusFacts(now: now, feedbackDue: configuration.program.feedbackDue,
                                                                        recentWindow: thresholds.recentArtifactWindow)
                database = .read
            } catch {
                database = .failed(Self.describe(error))
            }
        } else if case .failed = directory {
            database = .failed("the state directory cannot be read")
        } else if !FileManager.default.fileExists(atPath: path) {
            database = .absent
        } else {
            do {
                let opened = try AppDatabase.openReadOnly(path: path)
                facts = try await opened.statusFacts(now: now, feedbackDue: configuration.program.feedbackDue,
                                               recentWindow: thresholds.recentArtifactWindow)
                database = .read
            } catch {
                database = .failed(Self.describe(error))
            }
        }
        return assemble(now: now, daemon: await daemon, stateDirectory: directory, database: database, facts: facts)
    }

    /// The report as the daemon itself gives it at `GET /v1/status` (and, once a minute, to
    /// `/metrics`): the daemon section is what `/readyz` would answer (`Readiness`), except
    /// that every check is asked, so `failing_checks` names the store also while the database
    /// is away.
    ///
    /// - Parameters:
    ///   - database: The daemon's open database.
    ///   - startedAt: When the daemon started (uptime is measured from it).
    ///   - artifactStorage: Where the daemon keeps artifacts; nil: as `artifacts.url` says.
    public func report(now: Date, database: AppDatabase, startedAt: Date, artifactStorage: (any ArtifactStorage)? = nil) async -> StatusReport {
        // The store is asked while the database is read: one that does not answer costs its 3 s once.
        let storage: Result<any ArtifactStorage, any Error> = Result { try artifactStorage ?? ArtifactStorageConfiguration.storage(for: configuration) }
        async let storeAnswers = Self.answers(storage)
        let facts: StatusFacts?
        let access: StatusAccess
        do {
            facts = try await database.statusFacts(now: now, feedbackDue: configuration.program.feedbackDue,
                                                   recentWindow: thresholds.recentArtifactWindow)
            access = .read
        } catch {
            facts = nil
            access = .failed(Self.describe(error))
        }
        var readiness = Readiness()
        readiness.database(answers: facts != nil)
        readiness.disk(freeBytes: DiskSpace.availableBytes(at: stateDirectory.root.path), minimum: configuration.storage.minFreeBytes)
        let storeDescription = switch storage {
        case let .success(storage): storage.description
        case let .failure(error): "artifacts.url: \(error)"
        }
        readiness.artifactStore(answers: await storeAnswers, description: storeDescription,
                                remoteService: ArtifactStorageConfiguration.isRemoteService(configuration))
        let daemon = StatusReport.Daemon(
            up: true, ready: readiness.isReady, expectedRunning: expectRunning, uptimeSeconds: max(0, Int(now.timeIntervalSince(startedAt))),
            startedAt: startedAt, pid: Int(getpid()), error: readiness.blocking?.code, failingChecks: readiness.failures)
        return assemble(now: now, daemon: daemon, stateDirectory: .read, database: access, facts: facts)
    }

    /// Whether the store answers (`isReachable`: 3 s at most); a store that could not be made does not.
    private static func answers(_ storage: Result<any ArtifactStorage, any Error>) async -> Bool {
        guard case let .success(storage) = storage else { return false }
        return await storage.isReachable()
    }

    /// Fills in every section from what was read, then evaluates the checks.
    func assemble(now: Date, daemon: StatusReport.Daemon, stateDirectory directory: StatusAccess, database: StatusAccess,
                  facts: StatusFacts?) -> StatusReport {
        let state = stateDirectory
        let facts = facts ?? StatusFacts()
        func age(_ date: Date?) -> Int? { date.map { max(0, Int(now.timeIntervalSince($0))) } }
        func counts(_ uploads: StatusFacts.Uploads) -> StatusReport.UploadCounts {
            .init(accepted: uploads.accepted, rejected: uploads.rejected, rejectedByReason: uploads.rejectedByReason)
        }

        let census = DropFolderCensus(path: configuration.dropbox.path)
        let diskPath = Self.nearestExisting(state.root.path)
        let free = DiskSpace.availableBytes(at: diskPath)
        let total = DiskSpace.totalBytes(at: diskPath)
        let freePercent: Double? = if let free, let total, total > 0 { Double(free) / Double(total) * 100 } else { nil }
        let databaseBytes = Self.fileSize(state.databasePath)
        let walBytes = Self.fileSize(state.databasePath + "-wal")

        // In an S3 store one HEAD per recent file would not stay within the status budget: the
        // daemon's listing sweep (`last_full_sweep`) is the check there.
        let s3Location = configuration.artifacts.s3Location
        let checked = database == .read && s3Location == nil
        let missing = checked ? ArtifactPresence.missing(facts.recentArtifactPaths, under: configuration.artifacts.directory ?? state.artifacts.path) : []

        var report = StatusReport(
            state: .ok, generatedAt: now, stateDir: state.root.path, daemon: daemon,
            uploads: .init(last24h: counts(facts.last24h), last7d: counts(facts.last7d)),
            awaitingFeedback: .init(count: facts.awaitingFeedback, oldestAgeSeconds: age(facts.oldestAwaitingReceivedAt)),
            overdue: .init(count: facts.overdue, dueHours: configuration.program.feedbackDue / 3_600),
            overdueByCoach: facts.overdueByCoach,
            enrolments: .init(awaitingPlacement: facts.awaitingPlacement, graduated: facts.graduated),
            questions: .init(open: facts.openQuestions, overdue: facts.overdueQuestions),
            encodeQueue: .init(count: facts.jobsQueued + facts.jobsRunning, oldestAgeSeconds: age(facts.oldestPendingJobCreatedAt),
                               queued: facts.jobsQueued, running: facts.jobsRunning, failed: facts.jobsFailed),
            dropbox: .init(path: configuration.dropbox.path, exists: census.exists, backlog: census.backlog,
                           oldestAgeSeconds: age(census.oldestModified), rejected: census.rejected,
                           rejectedLast24h: facts.dropboxRejectedLast24h,
                           suspended: census.suspended.map { .init(folder: $0.folder, reason: $0.reason) }),
            notifications: .init(count: facts.undeliveredEvents, oldestAgeSeconds: age(facts.oldestUndeliveredOccurredAt),
                                 webhookConfigured: configuration.webhook.url != nil, disabled: facts.webhookDisabled),
            disk: .init(path: diskPath, freeBytes: free, totalBytes: total, freePercent: freePercent, artifactBytes: facts.artifactBytes,
                        artifactsURL: s3Location.map { "\($0)" } ?? "file:"),
            // On PostgreSQL: where the data is, and its size as the server reports it.
            database: configuration.database.postgres.map {
                .init(path: "\($0)", exists: database == .read, sizeBytes: facts.databaseBytes ?? 0, walBytes: 0)
            }
                ?? .init(path: state.databasePath, exists: databaseBytes != nil,
                         sizeBytes: (databaseBytes ?? 0) + (walBytes ?? 0), walBytes: walBytes ?? 0),
            missingArtifacts: .init(
                count: missing.count, checkedFiles: checked ? facts.recentArtifactPaths.count : 0,
                checkedSince: checked ? facts.recentSince : nil, examples: Array(missing.sorted().prefix(10)),
                lastFullSweep: facts.lastSweep.map { .init(sweptAt: $0.sweptAt, count: $0.missing) }),
            backup: .init(dir: configuration.backup.dir, everyHours: configuration.backup.dir == nil ? nil : configuration.backup.everyHours,
                          lastAt: facts.lastBackup?.at, lastAgeSeconds: age(facts.lastBackup?.at), lastPath: facts.lastBackup?.path,
                          verified: facts.lastBackup?.verified),
            cluster: Self.cluster(facts, engine: configuration.database.postgres == nil ? "sqlite" : "postgres"),
            checks: [])
        report.replyTurnaround = .init(windowDays: Int(AppDatabase.turnaroundWindow / 86_400),
                                       dueHours: configuration.program.feedbackDue / 3_600, figures: facts.turnaround)
        if configuration.apns != nil || configuration.fcm != nil, let pushes = facts.pushes {
            report.pushes = .init(pending: pushes.pending, oldestPendingAgeSeconds: age(pushes.oldestPendingSince),
                                  sentLast24h: pushes.sentLastDay, stopped: pushes.stopped)
        }
        report.erasureRequests = .init(pending: facts.erasureRequestsPending, earliestDueAt: facts.earliestErasureDueAt,
                                       late: facts.erasureRequestsLate)
        report.checks = thresholds.checks(for: report, stateDirectory: directory, database: database)
        report.state = StatusState.worst(report.checks.map(\.state))
        return report
    }

    /// The cluster section: nodes by their heartbeats (on the wall clock, as they write them).
    static func cluster(_ facts: StatusFacts, engine: String, wallNow: Date = Date()) -> StatusReport.Cluster {
        let live = 3 * AppDatabase.nodeHeartbeat
        return .init(engine: engine, nodes: facts.nodes.map { node in
            let seen = max(0, Int(wallNow.timeIntervalSince(node.seenAt)))
            return .init(id: node.id, startedAt: node.startedAt, seenAgeSeconds: seen, live: Double(seen) <= live,
                         jobsRunning: node.jobsRunning, uploadsHeld: node.uploadsHeld)
        }, expiredJobLeases: facts.expiredJobLeases)
    }

    /// Whether the state directory can be listed: absent is fine (nothing ran yet), unreadable is not.
    static func access(directory path: String) -> StatusAccess {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return errno == ENOENT ? .absent : .failed(String(cString: strerror(errno)))
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { return .failed("not a directory") }
        guard Glibc.access(path, R_OK | X_OK) == 0 else { return .failed(String(cString: strerror(errno))) }
        return .read
    }

    /// `path`, or its nearest ancestor that exists (for the disk figures of a state directory not created yet).
    static func nearestExisting(_ path: String) -> String {
        var url = URL(fileURLWithPath: path)
        while !FileManager.default.fileExists(atPath: url.path), url.path != "/" {
            url.deleteLastPathComponent()
        }
        return url.path
    }

    static func fileSize(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// One line for an error reading the database (`file is not a database`, …).
    static func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            return error.message ?? "\(error.resultCode)"
        }
        return "\(error)"
    }
}
