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
public struct DropFolderService: Service {
    let runtime: TilawaRuntime
    let pool: AudioWorkPool
    let wakeup: WakeupSignal
    let jobsWakeup: WakeupSignal
    let logger: Logger
    let useInotify: Bool
    let onFirstScan: (@Sendable () -> Void)?

    /// Creates the service; `jobsWakeup` is signalled when a reply's encode job is queued;
    /// `onFirstScan` is called once every folder is under watch (tests wait for it).
    public init(runtime: TilawaRuntime, pool: AudioWorkPool, jobsWakeup: WakeupSignal, logger: Logger, useInotify: Bool = true,
                onFirstScan: (@Sendable () -> Void)? = nil) {
        self.runtime = runtime
        self.pool = pool
        self.wakeup = WakeupSignal()
        self.jobsWakeup = jobsWakeup
        self.logger = logger
        self.useInotify = useInotify
        self.onFirstScan = onFirstScan
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
        let pollInterval = Duration.milliseconds(Int64(runtime.configuration.dropbox.pollInterval * 1000))
        let processor = DropFolderProcessor(runtime: runtime)
        var firstScan = true
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            var fresh: Set<String> = []
            if let watcher {
                for event in watcher.drain().events { tracker.mark(event.path, complete: event.complete) }
            }
            let scan = Self.scan(root: root)
            for directory in scan.directories where !watched.contains(directory) {
                // Files already in a folder when its watch starts can have no completion event.
                watcher?.watch(directory, root: false)
                watched.insert(directory)
                fresh.insert(directory)
            }
            if firstScan {
                firstScan = false
                onFirstScan?()
            }
            let polling = watcher == nil
            let ready = tracker.observe(scan.files, now: .now) { path in
                polling || fresh.contains((path as NSString).deletingLastPathComponent)
            }
            for path in ready where !Task.isShuttingDownGracefully {
                let coach = ((path as NSString).deletingLastPathComponent as NSString).lastPathComponent
                await take(path, coach: coach, processor: processor)
                tracker.forget(path)
            }
            await cancelWhenGracefulShutdown { await wakeup.wait(timeout: pollInterval) }
        }
    }

    private func take(_ path: String, coach: String, processor: DropFolderProcessor) async {
        do {
            let outcome = try await pool.run { try processor.process(path: path, coachId: coach) }
            switch outcome {
            case let .processed(feedbackId):
                jobsWakeup.signal()
                logger.info("coach reply taken", metadata: ["file": "\(path)", "feedback": "\(feedbackId ?? "-")"])
            case let .rejected(reason):
                logger.notice("coach reply rejected", metadata: ["file": "\(path)", "reason": "\(reason)"])
            case .skipped:
                break
            }
        } catch {
            // Left in place: the next scan tries again (a full disk, a database hiccup).
            logger.error("cannot take coach reply", metadata: ["file": "\(path)", "error": "\(error)"])
        }
    }

    /// Coach folders and the files in them (not `processed/`, `rejected/`, temporary names or notes).
    static func scan(root: String) -> (directories: [String], files: [String: SettleTracker.Observation]) {
        var directories: [String] = []
        var files: [String: SettleTracker.Observation] = [:]
        let manager = FileManager.default
        for coach in (try? manager.contentsOfDirectory(atPath: root)) ?? [] where !coach.hasPrefix(".") {
            let directory = root + "/" + coach
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else { continue }
            directories.append(directory)
            for name in (try? manager.contentsOfDirectory(atPath: directory)) ?? [] {
                guard !DropFileName.isTemporary(name), !DropFileName.isSidecar(name) else { continue }
                let path = directory + "/" + name
                if let observation = SettleTracker.Observation(path: path) { files[path] = observation }
            }
        }
        return (directories, files)
    }
}

/// Records `feedback_overdue` for submissions past their feedback deadline, once each,
/// checked every minute.
public struct FeedbackDeadlineService: Service {
    let runtime: TilawaRuntime
    let wakeup: WakeupSignal?
    let interval: Duration
    let logger: Logger

    public init(runtime: TilawaRuntime, notify wakeup: WakeupSignal?, interval: Duration = .seconds(60), logger: Logger) {
        self.runtime = runtime
        self.wakeup = wakeup
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                let count = try runtime.database.recordOverdueFeedback(now: runtime.clock(), due: runtime.configuration.program.feedbackDue)
                if count > 0 {
                    logger.warning("feedback overdue", metadata: ["submissions": "\(count)"])
                    wakeup?.signal()
                }
            } catch {
                logger.error("overdue check failed", metadata: ["error": "\(error)"])
            }
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return
            }
        }
    }
}
