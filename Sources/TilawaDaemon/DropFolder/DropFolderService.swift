import Foundation
import Logging
import ServiceLifecycle
import TilawaCore
import TilawaStore

/// Watches `<dropbox>/<coach-id>/` folders and turns each complete reply into feedback.
///
/// inotify (IN_CLOSE_WRITE, IN_MOVED_TO; coach folders created later included) says when a
/// file is complete; a scan every `pollInterval` is the safety net, and the only source
/// where inotify is unavailable. A full scan runs at start and after an `IN_Q_OVERFLOW`.
/// Files are taken one at a time on the audio pool once settled (`SettleTracker`);
/// temporary names are never touched.
///
/// One process watches at a time (the `dropbox` duty, DESIGN §13): nodes sharing a PostgreSQL
/// database and a drop folder on a shared filesystem take turns, the others waiting for the
/// duty; the holder checks it still holds it before each file it takes.
public struct DropFolderService: Service {
    let runtime: TilawaRuntime
    let pool: AudioWorkPool
    let wakeup: WakeupSignal
    let jobsWakeup: WakeupSignal
    let logger: Logger
    let useInotify: Bool
    let onScan: (@Sendable () -> Void)?

    /// Creates the service; `jobsWakeup` is signalled when a reply's encode job is queued;
    /// `onScan` is called after every pass over the folders, the first once every folder is
    /// under watch (tests wait for passes instead of sleeping).
    public init(runtime: TilawaRuntime, pool: AudioWorkPool, jobsWakeup: WakeupSignal, logger: Logger, useInotify: Bool = true,
                onScan: (@Sendable () -> Void)? = nil) {
        self.runtime = runtime
        self.pool = pool
        self.wakeup = WakeupSignal()
        self.jobsWakeup = jobsWakeup
        self.logger = logger
        self.useInotify = useInotify
        self.onScan = onScan
    }

    public func run() async throws {
        let root = runtime.configuration.dropbox.path
        try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let wakeup = self.wakeup
        let watcher = useInotify ? InotifyWatcher(onEvent: { wakeup.signal() }) : nil
        if let watcher, watcher.watch(root, root: true) {
            watcher.start()
            logger.info("watching drop folder", metadata: ["path": "\(root)", "mode": "inotify"])
        } else {
            logger.info("watching drop folder", metadata: ["path": "\(root)", "mode": "polling"])
        }
        defer { watcher?.stop() }

        var tracker = SettleTracker(settle: .milliseconds(Int64(runtime.configuration.dropbox.settleTime * 1000)))
        var watched: Set<String> = []
        var suspended: Set<DropFolderScan.Suspension> = []
        let pollInterval = Duration.milliseconds(Int64(runtime.configuration.dropbox.pollInterval * 1000))
        let processor = DropFolderProcessor(runtime: runtime)
        var duty: (any DutyClaim)?
        var othersWatch = false
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            if duty == nil {
                do {
                    duty = try await runtime.database.claimDuty(Self.duty)
                } catch {
                    logger.error("cannot claim the drop folder", metadata: ["error": "\(error)"])
                }
                if duty == nil {
                    if !othersWatch { logger.info("another node watches the drop folder") }
                    othersWatch = true
                    await cancelWhenGracefulShutdown { await wakeup.wait(timeout: pollInterval) }
                    continue
                }
                if othersWatch { logger.info("this node now watches the drop folder") }
                othersWatch = false
            } else if await duty?.isHeld() != true {
                // Asked at every pass (at least every 10 s), which also keeps the duty's session
                // from being ended as idle.
                logger.warning("the drop folder's duty was lost; claiming it again")
                duty = nil
                continue
            }
            var fresh: Set<String> = []
            if let watcher {
                for event in watcher.drain().events { tracker.mark(event.path, complete: event.complete) }
            }
            let scan = DropFolderScan(root: root)
            let now = Set(scan.suspensions)
            for suspension in now.subtracting(suspended) {
                let names = runtime.pseudonyms, coach = LogPseudonyms.coachFolder(of: suspension.folder)
                logger.error("coach folder suspended", metadata: [
                    "folder": "\(names.scrub(suspension.folder, coach: coach, name: nil))",
                    "reason": "\(names.scrub(suspension.reason, coach: coach, name: nil))",
                ])
            }
            suspended = now
            for folder in scan.folders {
                let directory = root + "/" + folder.coach
                guard !watched.contains(directory) else { continue }
                // Files already in a folder when its watch starts can have no completion event.
                watcher?.watch(directory, root: false)
                watched.insert(directory)
                fresh.insert(folder.coach)
            }
            let polling = watcher == nil
            let entries = Dictionary(scan.entries.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
            let ready = tracker.observe(entries.mapValues(\.observation), now: .now) { key in
                guard let entry = entries[key] else { return polling }
                return polling || entry.isUnusual || fresh.contains(entry.folder.coach)
            }
            for key in ready where !Task.isShuttingDownGracefully {
                guard let entry = entries[key] else { continue }
                guard await duty?.isHeld() == true else {
                    // The connection that held it dropped: another node may be watching now.
                    logger.warning("the drop folder's duty was lost; taking no more files until it is claimed again")
                    duty = nil
                    break
                }
                await take(entry, processor: processor, duty: duty)
                tracker.forget(key)
            }
            onScan?()
            await cancelWhenGracefulShutdown { await wakeup.wait(timeout: min(pollInterval, Self.dutyCheckInterval)) }
        }
        await duty?.release()
    }

    /// The name of the duty of watching the drop folder.
    static let duty = "dropbox"
    /// How often the holder asks whether it still holds the duty, while it waits and while it
    /// works on a file: well within the duty's idle limit (`PostgresStore.dutyIdleTimeout`).
    static let dutyCheckInterval = Duration.seconds(10)

    /// Takes one file, and logs what became of it with the coach, and the student its name
    /// starts with, as `log.ids` names them (`LogPseudonyms.dropFile`).
    private func take(_ entry: DropFolderScan.Entry, processor: DropFolderProcessor, duty: (any DutyClaim)?) async {
        let names = runtime.pseudonyms
        let file = names.dropFile(coach: entry.folder.coach, name: entry.name)
        // A reason or an error may quote the folder or the file's name.
        let scrub = { (text: String) in names.scrub(text, coach: entry.folder.coach, name: entry.name) }
        do {
            let outcome = try await withThrowingTaskGroup(of: DropFolderProcessor.Outcome?.self) { group in
                // A long reply (a large file read from a network folder) keeps the duty's
                // session from going idle while it is worked on.
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: Self.dutyCheckInterval)
                        if !Task.isCancelled { _ = await duty?.isHeld() }
                    }
                    return nil
                }
                group.addTask { try await pool.run { try processor.process(entry) } }
                defer { group.cancelAll() }
                while let result = try await group.next() {
                    if let result { return result }
                }
                return .skipped
            }
            switch outcome {
            case let .processed(feedbackId):
                jobsWakeup.signal()
                logger.info("coach reply taken", metadata: ["file": "\(file)", "feedback": "\(feedbackId ?? "-")"])
            case let .rejected(reason):
                logger.notice("coach reply rejected", metadata: ["file": "\(file)", "reason": "\(scrub(reason))"])
            case .skipped:
                break
            }
        } catch let suspended as DropFolderProcessor.SuspendedFolder {
            // The next scan sees the folder as it is and leaves it alone until it is mended.
            logger.error("coach folder suspended", metadata: ["file": "\(file)", "reason": "\(scrub("\(suspended)"))"])
        } catch {
            // Left in place: the next scan tries again (a full disk, a database hiccup).
            logger.error("cannot take coach reply", metadata: ["file": "\(file)", "error": "\(scrub("\(error)"))"])
        }
    }
}
