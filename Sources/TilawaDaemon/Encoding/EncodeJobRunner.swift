import Foundation
import Logging
import TilawaAudio
import TilawaCore
import TilawaStore

/// Turns queued encode jobs into Ogg Opus files and waveform JSON, and records the result.
///
/// A job whose process dies half-way leaves at most a temporary file (swept at start) and
/// a `running` row that comes back: at the next start on this host (`requeueAbandonedJobs`),
/// or on any node once its lease runs out (`requeueExpiredJobLeases`). The work is
/// idempotent, so running it again is safe, and a worker that lost its lease records nothing.
public struct EncodeJobRunner: Sendable {
    public let database: AppDatabase
    public let stateDirectory: StateDirectory
    public let processor: AudioProcessor
    /// The chain for coach replies (their longer maximum duration).
    public let feedbackProcessor: AudioProcessor
    public let clock: @Sendable () -> Date
    /// Attempts before a job fails for good; passing failures (`JobFailure`) use none.
    public var maximumAttempts = 3
    /// Whether the node's disk is short of room now (under `storage.min_free_bytes`): a job
    /// that fails meanwhile waits for room rather than using an attempt.
    public var diskIsLow: @Sendable () -> Bool = { false }
    /// Called as an encode starts, its lease checked: where a test stands a worker stalled
    /// mid-encode (its lease taken and the job recorded by another meanwhile).
    var encodeStarts: @Sendable (JobLease) -> Void = { _ in }

    /// Creates a runner.
    public init(database: AppDatabase, stateDirectory: StateDirectory, processor: AudioProcessor,
                feedbackProcessor: AudioProcessor? = nil, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.stateDirectory = stateDirectory
        self.processor = processor
        self.feedbackProcessor = feedbackProcessor ?? processor
        self.clock = clock
    }

    /// The identity written into claimed jobs: `pid@host`.
    public static let workerIdentity: String = "\(getpid())@\(ProcessInfo.processInfo.hostName)"

    /// Whether the worker named `identity` (`pid@host`, or `pid@host#n` for a daemon's n-th
    /// worker) may still be working: a live process on this host, or any worker of another
    /// host, which this host cannot see (nodes sharing one PostgreSQL database). Only a dead
    /// process of this host gives its jobs back; another node's stay its own.
    public static func isAlive(_ identity: String) -> Bool {
        isAlive(identity, host: ProcessInfo.processInfo.hostName) { pid in kill(pid, 0) == 0 || errno == EPERM }
    }

    /// `isAlive` with the host and the process check given (tested alone).
    static func isAlive(_ identity: String, host: String, processExists: (Int32) -> Bool) -> Bool {
        let parts = identity.split(separator: "@", maxSplits: 1)
        guard parts.count == 2, let pid = Int32(parts[0]) else { return false }
        let workerHost = parts[1].split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard workerHost == host else { return true }
        return processExists(pid)
    }

    /// Runs queued jobs until none is due; returns how many ran.
    @discardableResult
    public func runPending() throws -> Int {
        var count = 0
        while let job = try database.claimNextJob(worker: Self.workerIdentity, now: clock()) {
            run(job)
            count += 1
        }
        return count
    }

    /// Does one claimed job and records its outcome; never throws (a failure is recorded on the job).
    ///
    /// The claim's lease is renewed while the job runs; a worker that lost it (it stalled past
    /// the lease, and another worker claimed the job) records nothing.
    public func run(_ job: JobRecord) {
        guard let lease = job.lease else { return }
        // A claim that waited (for a thread of the pool) past its lease may be another's by now.
        if (try? database.renewJobLease(lease)) == false {
            logger.warning("job claimed again before it started: left to its new holder", metadata: ["job": "\(lease.jobId)"])
            return
        }
        let keeper = JobLeaseKeeper(database: database, lease: lease, logger: logger)
        defer { keeper.stop() }
        do {
            switch job.kind {
            case .encodeSubmission:
                try encodeSubmission(job: job, lease: lease)
            case .encodeFeedback:
                try encodeFeedback(job: job, lease: lease)
            }
        } catch let error as JobLeaseLost {
            logger.warning("job finished under a lost lease: nothing recorded", metadata: ["job": "\(error.jobId)"])
        } catch {
            record(error, of: job, lease: lease)
        }
    }

    /// Records a job's failure: a passing one (the artifact store or the database away, the
    /// disk full) queues it again later, for as long as the fault lasts, without using an
    /// attempt; any other uses one, and the last fails the recording for good.
    private func record(_ error: any Error, of job: JobRecord, lease: JobLease) {
        let now = clock()
        do {
            if JobFailure.isTransient(error, diskLow: diskIsLow()) {
                let due = try database.deferJob(lease, error: String(describing: error), now: now)
                logger.warning("job failed for a passing reason: tried again later, no attempt used", metadata: [
                    "job": "\(lease.jobId)", "retry_in_seconds": "\(Int(due.timeIntervalSince(now)))", "error": "\(error)",
                ])
            } else {
                try database.failJob(lease, error: String(describing: error),
                                     retryAt: job.retryAfterFailure(at: now, maximumAttempts: maximumAttempts), now: now)
            }
        } catch {
            // Unrecorded, the job comes back when its lease runs out.
            logger.warning("cannot record a job's failure", metadata: ["job": "\(lease.jobId)", "error": "\(error)"])
        }
    }

    private var logger: Logger { Logger(label: "tilawa.encode") }

    private func encodeFeedback(job: JobRecord, lease: JobLease) throws {
        guard let feedback = try database.feedback(id: job.subjectId), let original = feedback.originalPath else {
            throw StoreError.internalInconsistency("no feedback \(job.subjectId) or no original recording")
        }
        let artifacts = try encode(original: original, family: .feedback, id: feedback.id, date: feedback.receivedAt,
                                   processor: feedbackProcessor, analysis: feedback.analysis, lease: lease)
        try database.completeFeedbackEncode(
            lease: lease, feedbackId: feedback.id, audioPath: artifacts.audioPath, audioBytes: artifacts.encoded.bytes,
            waveformPath: artifacts.waveformPath, outputGainDB: artifacts.encoded.outputGainDB, now: clock())
    }

    private func encodeSubmission(job: JobRecord, lease: JobLease) throws {
        guard let submission = try database.submission(id: job.subjectId) else {
            throw StoreError.internalInconsistency("no submission \(job.subjectId)")
        }
        guard let original = submission.originalPath else {
            if submission.state == .withdrawn {
                // Withdrawn between the claim and now: nothing to encode.
                try database.completeSubmissionEncode(lease: lease, submissionId: submission.id, audioPath: "", audioBytes: 0,
                                                      waveformPath: "", outputGainDB: 0, now: clock())
                return
            }
            throw StoreError.internalInconsistency("no original recording for \(job.subjectId)")
        }
        let artifacts = try encode(original: original, family: .submissions, id: submission.id, date: submission.receivedAt,
                                   processor: processor, analysis: submission.analysis, soundFrames: true, lease: lease)
        let kept = try database.completeSubmissionEncode(
            lease: lease, submissionId: submission.id, audioPath: artifacts.audioPath, audioBytes: artifacts.encoded.bytes,
            waveformPath: artifacts.waveformPath, outputGainDB: artifacts.encoded.outputGainDB,
            ayahMarkers: ayahMarkers(for: submission, sound: artifacts.sound), now: clock())
        if !kept {
            // Withdrawn while it was encoded: nothing points to these files.
            stateDirectory.artifactStore.remove(artifacts.audioPath)
            stateDirectory.artifactStore.remove(artifacts.waveformPath)
            for variant in ArtifactStore.variants(ofAudio: artifacts.audioPath) { stateDirectory.artifactStore.remove(variant) }
        }
    }

    /// Where the submission's ayahs are, from the speech segments its judging pass kept (the
    /// detector does not run again: the alignment is a small dynamic programme over a few
    /// hundred pauses), checked against the `sound` this encode heard; nil when its passage
    /// names no ayahs or the row predates the segments. Markers are an aid to the coach: a
    /// failure to read the passage leaves the recording without them rather than failing its encode.
    private func ayahMarkers(for submission: SubmissionRecord, sound: SoundFrames?) -> AyahMarkers? {
        guard let segments = submission.speechSegments,
              let ayahs = (try? database.submissionExtras(submission))?.ayahs, !ayahs.isEmpty else { return nil }
        return AyahMarking.markers(ayahs: ayahs, segments: segments, sound: sound).markers
    }

    /// Encodes an original to `<family>/YYYY/MM/<id>.opus` and its peaks to `<id>.peaks.json`,
    /// both placed durably before the caller records them. The recording was analysed when it
    /// arrived (`analysis`, stored with its row): one decode feeds the encoder and the peaks,
    /// and the playback gain comes from the stored figures — no second analysis.
    ///
    /// The keys are the recording's own, the same for every attempt, so only the lease's holder
    /// writes or removes them: the encoder writes a work file of this attempt's own; a worker
    /// that stalled past its lease (another has recorded the job meanwhile) finds so before it
    /// publishes anything, and drops only that work file — on S3, on one disk, or on a disk the
    /// nodes share.
    private func encode(original: String, family: ArtifactStore.Family, id: String, date: Date,
                        processor: AudioProcessor, analysis: AudioAnalysis, soundFrames: Bool = false, lease: JobLease)
        throws -> (audioPath: String, waveformPath: String, encoded: EncodedAudio, sound: SoundFrames?) {
        let store = stateDirectory.artifactStore
        let audioPath = store.relativePath(family, name: "\(id).opus", date: date)
        let waveformPath = store.relativePath(family, name: "\(id).peaks.json", date: date)
        try store.prepareDirectory(for: audioPath)
        // With artifacts in S3 the original is fetched to the work area for the decoder, and
        // every file made here is uploaded before the row that names it commits.
        let source = try store.localCopy(of: original)
        defer { source.release() }
        let work = try store.workPath(for: audioPath)
        var published = false
        defer { if !published { store.discardWork(work) } }
        encodeStarts(lease)
        let (encoded, waveform, sound) = try processor.encode(path: source.path, to: work, analysis: analysis, soundFrames: soundFrames)
        guard try database.renewJobLease(lease) else { throw JobLeaseLost(jobId: lease.jobId) }
        do {
            try store.write(waveform.jsonData(), to: waveformPath)
            // The same packets for players that do not read Ogg; a failure here only means the
            // audio route makes the variant when first asked.
            for container in OpusContainer.allCases {
                let variant = AudioVariants.path(ofOgg: audioPath, container: container)
                if (try? OpusRemuxer.remux(oggPath: work, to: store.path(variant), container: container)) != nil {
                    do { try store.publish(variant) } catch { store.remove(variant) }
                }
            }
            try store.publish(audioPath, from: work)
            published = true
        } catch {
            // Keys are the recording's own: the retry writes them again. Only while the lease
            // holds: otherwise they may be what another worker recorded.
            if (try? database.renewJobLease(lease)) == true { store.remove(audioPath) }
            throw error
        }
        Failpoint.hit(Failpoint.afterEncode)
        return (audioPath, waveformPath, encoded, sound)
    }
}
