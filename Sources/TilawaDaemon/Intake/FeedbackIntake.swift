import Foundation
import TilawaAudio
import TilawaCore
import TilawaStore

/// The one path every coach reply takes (drop folder, `POST …/feedback`, `tilawa feedback import`):
/// pairing pre-check → the audio chain under the reply limits (2 s to 30 min, not silent) →
/// original placed durably → reply + encode job (+ the drop file's exactly-once row) in one
/// transaction. The staged file is consumed.
public struct FeedbackIntake: Sendable {
    public let runtime: TilawaRuntime

    public init(runtime: TilawaRuntime) {
        self.runtime = runtime
    }

    public func submit(
        stagedPath: String, coachId: String, target: FeedbackTarget, notes: String?, origin: SubmissionOrigin,
        fileExtension: String, dropFile: (sha256: String, fileName: String)? = nil, result: EOCResult? = nil
    ) throws -> FeedbackOutcome {
        try submit(staged: StagedFile(adopting: stagedPath), coachId: coachId, target: target, notes: notes, origin: origin,
                   fileExtension: fileExtension, dropFile: dropFile, result: result)
    }

    /// Pairs, checks and records the reply `staged` holds; the file is placed or discarded
    /// before this returns.
    public func submit(
        staged: StagedFile, coachId: String, target: FeedbackTarget, notes: String?, origin: SubmissionOrigin,
        fileExtension: String, dropFile: (sha256: String, fileName: String)? = nil, result eocResult: EOCResult? = nil,
        idempotency: IdempotencyClaim? = nil
    ) throws -> FeedbackOutcome {
        defer { staged.discard() }
        let stagedPath = staged.path
        let receivedAt = runtime.clock()
        switch try runtime.database.pairFeedback(target, coachId: coachId, now: receivedAt) {
        case let .failure(refusal):
            return .refused(refusal)
        case let .success(submission):
            // The result is checked before decoding too: a reply that cannot be recorded costs nothing.
            if let refusal = FeedbackRefusal.result(eocResult, for: submission) { return .refused(refusal) }
        }
        let processed: ProcessedAudio
        do {
            processed = try runtime.feedbackProcessor.process(path: stagedPath)
        } catch let rejection as AudioRejection {
            return .rejected(AudioVerdict(rejection: rejection))
        }
        guard processed.verdict.isAccepted else { return .rejected(processed.verdict) }

        let feedbackId = IdentifierGenerator.make("fb", now: receivedAt)
        let store = runtime.stateDirectory.artifactStore
        let safeExtension = String(fileExtension.lowercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber) }.prefix(8))
        let originalPath = store.relativePath(.originals, name: "\(feedbackId).\(safeExtension.isEmpty ? "bin" : safeExtension)", date: receivedAt)
        try staged.place(into: store, at: originalPath)
        let request = FeedbackRequest(
            feedbackId: feedbackId, coachId: coachId, receivedAt: receivedAt, notes: notes, analysis: processed.analysis,
            originalPath: originalPath, origin: origin, dropFile: dropFile, result: eocResult, idempotency: idempotency)
        let result: Result<(FeedbackRecord, JobRecord), FeedbackRefusal>
        do {
            result = try runtime.database.recordFeedback(request, target: target)
        } catch {
            // The database gone mid-transaction may have committed it (its COMMIT unanswered):
            // the original stays, and the sweep takes it if no row names it.
            let mayHaveCommitted = if case .unavailable? = error as? StoreError { true } else { false }
            if !mayHaveCommitted { store.remove(originalPath) }
            throw error
        }
        switch result {
        case let .success((feedback, job)):
            // The same drop-folder file, recorded meanwhile by another node: its reply stands.
            if feedback.id != feedbackId { store.remove(originalPath) }
            return .accepted(feedback, job: job)
        case let .failure(refusal):
            store.remove(originalPath)
            return .refused(refusal)
        }
    }
}
