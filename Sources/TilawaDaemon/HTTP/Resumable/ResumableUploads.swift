import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOFileSystem
import TilawaCore
import TilawaStore

/// The one upload store both resumable protocols (tus 1.0, the IETF draft) speak to: uploads
/// bound at creation to a student, enrolment and slot; bytes appended durably (written,
/// fsynced, then the offset recorded, so an offset is never reported for bytes that could be
/// lost); the complete recording judged exactly as a one-shot upload is, its answer kept.
struct ResumableUploads: Sendable {
    let api: APIContext
    let receiver: UploadReceiver
    let locks: UploadLocks

    var database: AppDatabase { api.runtime.database }
    var staging: UploadStagingArea { api.runtime.stateDirectory.uploadStaging }
    var settings: TilawaConfiguration.Uploads { api.runtime.configuration.uploads }
    var maxUploadBytes: Int64 { Int64(api.runtime.configuration.http.maxUploadBytes) }
    /// Where artifacts are kept (DESIGN §13): an S3 store keeps the appends too.
    var storage: any ArtifactStorage { api.runtime.stateDirectory.artifactStore.storage }

    /// The path an upload is reached at, whichever protocol created it.
    static func path(of id: String) -> String { "/v1/uploads/\(id)" }

    // MARK: Creation

    /// What a creation request says.
    struct Creation {
        var studentId: String
        var slot: Slot
        var uploadProtocol: ResumableUploadRecord.UploadProtocol
        var length: Int64?
        var fileExtension: String
        var fileName: String?
        var recordedAt: RecordedAt?
        var idempotencyKey: String?
    }

    /// Creates an upload, or finds the one its `Idempotency-Key` created; the refusals as problems.
    func create(_ creation: Creation) async throws -> (upload: ResumableUploadRecord, isNew: Bool) {
        if let length = creation.length, length > maxUploadBytes {
            throw APIProblem.payloadTooLarge(limit: Int(maxUploadBytes))
        }
        let now = api.now
        try await sweepExpired(now: now)
        let record = ResumableUploadRecord(
            id: IdentifierGenerator.make("upl", now: now), studentId: creation.studentId, enrolmentId: nil, slot: creation.slot.description,
            uploadProtocol: creation.uploadProtocol, length: creation.length, fileExtension: creation.fileExtension,
            fileName: creation.fileName, recordedAt: creation.recordedAt?.claimed, now: now, expiresAt: now + settings.expiry,
            idempotencyKey: creation.idempotencyKey, submissionId: IdentifierGenerator.make("sub", now: now))
        switch try await database.createUpload(record, maxOpenPerStudent: settings.maxOpenPerStudent, budgetBytes: settings.stagingBudgetBytes,
                                               maxUploadBytes: maxUploadBytes, now: now) {
        case let .created(upload):
            do {
                try staging.prepare(id: upload.id, offset: 0)
            } catch {
                _ = try? await database.cancelUpload(id: upload.id)
                throw error
            }
            return (upload, true)
        case let .existing(upload):
            return (upload, false)
        case .keyReused:
            throw APIProblem(.conflict, code: "idempotency_key_reused",
                             detail: "This Idempotency-Key started an upload for another week or length; use a new key for a new recording.")
        case let .tooManyOpen(limit):
            throw APIProblem(.tooManyRequests, code: "too_many_open_uploads",
                             detail: "You have \(limit) unfinished uploads; finish or cancel one before starting another.",
                             headers: [.retryAfter: "60"])
        case .budgetFull:
            throw APIProblem(.init(code: 507, reasonPhrase: "Insufficient Storage"), code: "upload_budget_full",
                             detail: "Tilawa is holding as many unfinished uploads as it has room for; try again in a few minutes.",
                             headers: [.retryAfter: "300"])
        }
    }

    // MARK: Termination and expiry

    /// Deletes an upload and its bytes (termination); a whole upload cannot be (call under its lock).
    func cancel(_ id: String) async throws {
        guard try await database.cancelUpload(id: id) != nil else {
            switch try await database.resumableUpload(id: id)?.state {
            case .answered?:
                throw APIProblem(.conflict, code: "upload_complete",
                                 detail: "This upload is complete; to take the recording back, withdraw the submission (DELETE /v1/submissions/{id}).")
            case .completing?:
                throw APIProblem(.conflict, code: "upload_completing", detail: "This upload is being judged and can no longer be cancelled.")
            default:
                throw APIProblem.notFound("upload with this id")
            }
        }
        await removeBytes(id)
    }

    /// Deletes the uploads past their expiry with their bytes. (An append moves its upload's
    /// expiry before reading, in a transaction of its own, so it is never taken mid-append.)
    func sweepExpired(now: Date) async throws {
        for upload in try await database.deleteExpiredUploads(now: now) {
            await removeBytes(upload.id)
        }
    }
}

extension HTTPField.Name {
    static let uploadOffset = Self("Upload-Offset")!
    static let uploadLength = Self("Upload-Length")!
}
