import Foundation
import Logging
import ServiceLifecycle
import TilawaStore

/// Runs queued encode jobs with a bounded number of workers until graceful shutdown.
///
/// Each worker claims one job at a time (an atomic claim in the database, so processes
/// sharing the state directory never double-run a job), runs it on the audio pool, and
/// sleeps until woken by a new admission or the poll interval; while the node's disk is short
/// of room (`storage.min_free_bytes`) it claims nothing. On shutdown a worker
/// finishes the job in hand — the HTTP server has already stopped taking uploads — and
/// takes no new one; anything still queued runs at the next start.
public struct EncodeWorkerService: Service {
    let runtime: TilawaRuntime
    let pool: AudioWorkPool
    let wakeup: WakeupSignal
    let workers: Int
    let pollInterval: Duration
    let metrics: TilawaMetrics
    let logger: Logger
    /// How often, busy or not, expired leases of any node are given back: a third of a lease.
    var rescueInterval: Duration = .seconds(AppDatabase.jobLeaseDuration / 3)
    /// The runner jobs go to (the runtime's; a test's stalls its encodes).
    var runner: EncodeJobRunner

    /// Creates the service.
    public init(runtime: TilawaRuntime, pool: AudioWorkPool, wakeup: WakeupSignal, workers: Int,
                pollInterval: Duration = .seconds(1), metrics: TilawaMetrics, logger: Logger) {
        self.runtime = runtime
        self.pool = pool
        self.wakeup = wakeup
        self.workers = max(1, workers)
        self.pollInterval = pollInterval
        self.metrics = metrics
        self.logger = logger
        runner = runtime.encodeRunner
    }

    public func run() async throws {
        await withDiscardingTaskGroup { group in
            for index in 0..<workers {
                group.addTask { await work(index: index) }
            }
        }
    }

    private func work(index: Int) async {
        let runner = self.runner
        let worker = "\(EncodeJobRunner.workerIdentity)#\(index)"
        var lastRescue = ContinuousClock.now
        var waitingForRoom = false
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            // Busy or not, every third of a lease: a dead node's jobs must not wait for a
            // backlog to drain before they are given back.
            if index == 0, ContinuousClock.now - lastRescue >= rescueInterval {
                await requeueExpiredLeases()
                lastRescue = ContinuousClock.now
            }
            // A full node takes no job: its encode would fail for want of room. It waits, and
            // looks again; other nodes (or this one, once there is room) take the queue.
            if runtime.isDiskLow {
                if !waitingForRoom { logger.warning("disk short of room: no encode job is taken until there is", metadata: ["worker": "\(index)"]) }
                waitingForRoom = true
                await cancelWhenGracefulShutdown { await wakeup.wait(timeout: max(pollInterval, .seconds(5))) }
                continue
            }
            if waitingForRoom { logger.notice("disk has room again: encode jobs are taken", metadata: ["worker": "\(index)"]) }
            waitingForRoom = false
            let job: JobRecord?
            do {
                job = try await runtime.database.claimNextJob(worker: worker, now: runtime.clock())
            } catch {
                logger.error("cannot claim a job", metadata: ["error": "\(error)"])
                job = nil
            }
            guard let job else {
                // Idle: give back what a dead or stalled worker (of any node) holds past its
                // lease. One worker per node does it; the others would only repeat the query.
                if index == 0 {
                    await requeueExpiredLeases()
                    lastRescue = ContinuousClock.now
                }
                await cancelWhenGracefulShutdown { await wakeup.wait(timeout: pollInterval) }
                continue
            }
            let started = ContinuousClock.now
            do {
                // The job's result is recorded by the runner; this only waits for it.
                try await pool.run { runner.run(job) }
            } catch {
                // The pool refused (shutting down): hand the job back untouched.
                if let lease = job.lease { try? runtime.database.requeueJob(lease) }
                return
            }
            logger.info("job finished", metadata: [
                "job": "\(job.id ?? 0)", "kind": "\(job.kind.rawValue)", "subject": "\(job.subjectId)",
                "seconds": "\((ContinuousClock.now - started).seconds)",
            ])
            metrics.encodeDuration.record(ContinuousClock.now - started)
        }
    }
}

extension EncodeWorkerService {
    /// Queues again the jobs whose lease ran out, on any node.
    private func requeueExpiredLeases() async {
        do {
            let requeued = try await runtime.database.requeueExpiredJobLeases()
            if requeued > 0 { logger.warning("jobs whose lease ran out queued again", metadata: ["count": "\(requeued)"]) }
        } catch is CancellationError {
            // Shutting down.
        } catch {
            logger.error("cannot requeue expired job leases", metadata: ["error": "\(error)"])
        }
    }
}

extension Duration {
    /// The duration in seconds as a Double.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
