import Dispatch
import Foundation
import Logging
import Synchronization
import TilawaStore

/// Renews a running job's lease every third of `AppDatabase.jobLeaseDuration` until stopped,
/// on a timer of its own (the encode holds its thread). A renewal the database refuses means
/// another worker has the job: `isLost` says so, and the job's writes are refused anyway
/// (they carry the lease's fence).
final class JobLeaseKeeper {
    private let timer: any DispatchSourceTimer
    private let state = LeaseState()

    init(database: AppDatabase, lease: JobLease, logger: Logger) {
        let interval = AppDatabase.jobLeaseDuration / 3
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(500))
        timer.setEventHandler { [state] in
            guard !state.lost.load(ordering: .relaxed) else { return }
            do {
                if try !database.renewJobLease(lease) {
                    state.lost.store(true, ordering: .relaxed)
                    logger.warning("job lease lost", metadata: ["job": "\(lease.jobId)", "fence": "\(lease.fence)"])
                }
            } catch {
                // The database did not answer: the lease may still hold; the next tick tries again.
                logger.warning("cannot renew a job lease", metadata: ["job": "\(lease.jobId)", "error": "\(error)"])
            }
        }
        timer.resume()
    }

    /// Whether a renewal found the lease taken.
    var isLost: Bool { state.lost.load(ordering: .relaxed) }

    /// Stops renewing (the job is recorded, or given up).
    func stop() {
        timer.cancel()
    }
}

/// What the timer's handler and the keeper share.
private final class LeaseState: Sendable {
    let lost = Atomic<Bool>(false)
}
