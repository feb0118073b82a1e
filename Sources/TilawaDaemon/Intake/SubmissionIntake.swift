import Foundation
import TilawaAudio
import TilawaCore
import TilawaStore

/// The one path every recording takes, whatever brought it (HTTP upload, `tilawa ingest`,
/// `tilawa capture`): staged file → rules pre-check → decode + analyse → verdict →
/// original placed durably → atomic admission (rules + attempt + submission + job + event).
///
/// Every refusal is written to the rejection audit table and uses no attempt; the staged
/// file is gone when this returns, either moved into the artifact store or deleted.
public struct SubmissionIntake: Sendable {
    public let database: AppDatabase
    public let stateDirectory: StateDirectory
    public let processor: AudioProcessor
    public let policy: ProgramPolicy
    public let clock: @Sendable () -> Date
    /// How long before its upload an offline recording may say it was made (`uploads.max_offline_hours`).
    public var maxOffline: TimeInterval

    /// Creates an intake; `clock` is read once per recording (when it was received).
    public init(database: AppDatabase, stateDirectory: StateDirectory, processor: AudioProcessor, policy: ProgramPolicy,
                clock: @escaping @Sendable () -> Date = { Date() }, maxOffline: TimeInterval = 72 * 3_600) {
        self.maxOffline = maxOffline
        self.database = database
        self.stateDirectory = stateDirectory
        self.processor = processor
        self.policy = policy
        self.clock = clock
    }

    /// Judges and, if allowed, admits the recording at `stagedPath` (which this call consumes).
    ///
    /// - Parameter fileExtension: the extension to keep the original under (`wav`, `m4a`, …).
    /// - Throws: `StoreError` (`storage_full`, I/O) or database errors; the staged file is
    ///   removed and nothing is half-written.
    public func submit(
        stagedPath: String, studentId: String, slot: Slot, origin: SubmissionOrigin, fileExtension: String
    ) throws -> IntakeOutcome {
        try submit(staged: StagedFile(adopting: stagedPath), studentId: studentId, slot: slot, origin: origin, fileExtension: fileExtension)
    }

    /// Judges and, if allowed, admits the recording `staged` holds; the file is placed into
    /// the artifact store or discarded before this returns.
    ///
    /// `recordedAt` is the app's `Recorded-At` for a recording made offline; it decides `late`
    /// when believable for an upload that began at `uploadBegan` (see `RecordedAt`).
    /// `submissionId` is the id to admit it under when the caller fixed one beforehand (a
    /// resumable upload, which must find out after a crash whether its admission committed).
    /// `idempotency` is the request's claimed `Idempotency-Key`, answered in the admission's
    /// own transaction.
    public func submit(
        staged: StagedFile, studentId: String, slot: Slot, origin: SubmissionOrigin, fileExtension: String,
        recordedAt: RecordedAt? = nil, uploadBegan: Date? = nil, submissionId fixedId: String? = nil,
        idempotency: IdempotencyClaim? = nil
    ) throws -> IntakeOutcome {
        defer { staged.discard() }
        let stagedPath = staged.path
        let receivedAt = clock()
        let bytes = Self.fileSize(stagedPath)

        // Refuse what the rules refuse before spending a decode on it; the binding check is
        // the atomic one at admission.
        if let refusal = try database.precheckAdmission(studentId: studentId, slot: slot, policy: policy, now: receivedAt) {
            try audit(refusal.refusal, studentId: studentId, slot: slot, receivedAt: receivedAt, origin: origin, bytes: bytes,
                      timeZone: refusal.timeZone)
            return .refused(refusal.refusal, timeZone: refusal.timeZone)
        }

        let verdict: AudioVerdict
        var analysis: AudioAnalysis?
        var source: AudioSource?
        var speechSegments: [SpeechSegment] = []
        do {
            let processed = try processor.process(path: stagedPath)
            verdict = processed.verdict
            analysis = processed.analysis
            source = processed.source
            speechSegments = processed.speechSegments
        } catch let rejection as AudioRejection {
            verdict = AudioVerdict(rejection: rejection)
        }
        guard verdict.isAccepted, let analysis, let source else {
            let primary = verdict.primaryRejection ?? .unreadable(detail: "no verdict")
            try database.recordRejection(RejectionRecord(
                studentId: studentId, slot: slot.description, receivedAt: receivedAt, code: primary.code,
                reasons: verdict.rejections.map(\.code), message: primary.message, detail: primary.detail,
                analysis: analysis, origin: origin, bytes: bytes))
            return .rejected(verdict, analysis: analysis)
        }

        let submissionId = fixedId ?? IdentifierGenerator.make("sub", now: receivedAt)
        let store = stateDirectory.artifactStore
        let safeExtension = String(fileExtension.lowercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber) }.prefix(8))
        let originalPath = store.relativePath(.originals, name: "\(submissionId).\(safeExtension.isEmpty ? "bin" : safeExtension)", date: receivedAt)
        try staged.place(into: store, at: originalPath)

        var request = AdmissionRequest(
            submissionId: submissionId, studentId: studentId, slot: slot, receivedAt: receivedAt, analysis: analysis,
            source: source, warnings: verdict.warnings.map(\.code), originalPath: originalPath, originalBytes: bytes,
            origin: origin, recordedAt: recordedAt?.claimed,
            lateReference: recordedAt?.lateReference(uploadBegan: uploadBegan ?? receivedAt, receivedAt: receivedAt, maxOffline: maxOffline))
        request.speechSegments = speechSegments
        request.idempotency = idempotency
        let outcome: AdmissionOutcome
        do {
            outcome = try database.admitSubmission(request, policy: policy)
        } catch {
            // The database gone mid-admission may have committed it (its COMMIT unanswered): the
            // original stays, and the sweep takes it if no row names it.
            let mayHaveCommitted = if case .unavailable? = error as? StoreError { true } else { false }
            if !mayHaveCommitted { store.remove(originalPath) }
            throw error
        }
        switch outcome {
        case let .admitted(submission, attempts, job):
            Failpoint.hit(Failpoint.afterAdmission)
            return .accepted(submission, attempts: attempts, job: job)
        case let .refused(refusal, timeZone):
            store.remove(originalPath)
            try audit(refusal, studentId: studentId, slot: slot, receivedAt: receivedAt, origin: origin, bytes: bytes,
                      timeZone: timeZone, analysis: analysis)
            return .refused(refusal, timeZone: timeZone)
        }
    }

    private func audit(
        _ refusal: RuleRefusal, studentId: String, slot: Slot, receivedAt: Date, origin: SubmissionOrigin, bytes: Int,
        timeZone: TimeZone, analysis: AudioAnalysis? = nil
    ) throws {
        try database.recordRejection(RejectionRecord(
            studentId: studentId, slot: slot.description, receivedAt: receivedAt, code: refusal.code, reasons: [refusal.code],
            message: refusal.message(in: timeZone), detail: "", analysis: analysis, origin: origin, bytes: bytes))
    }

    static func fileSize(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }
}
