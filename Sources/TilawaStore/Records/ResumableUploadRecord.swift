import Foundation
import GRDB
import TilawaCore

/// One resumable upload (tus 1.0 or the IETF draft): who may append to it, for which slot,
/// how far it has come durably, and — once complete — the answer it received.
///
/// Its bytes are `uploads/<id>.part` in the state directory (`UploadStagingArea`); `offset`
/// is only ever advanced after those bytes are fsynced, so an offset read from here is
/// always backed by the file.
public struct ResumableUploadRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "resumableUpload"

    /// Where an upload is in its life.
    public enum State: String, Codable, Sendable {
        /// Taking bytes.
        case receiving
        /// Every byte is here; the recording is being judged (or was, by a process that died).
        case completing
        /// Judged: `answerStatus` and `answerBody` hold the answer a one-shot upload would get.
        case answered
    }

    /// The protocol the upload was created with; its URL answers in that protocol.
    public enum UploadProtocol: String, Codable, Sendable {
        case tus
        case ietf
    }

    public var id: String
    public var studentId: String
    /// The enrolment the upload was created in; an upload that outlives it is refused.
    public var enrolmentId: Int64?
    /// `1`…`15`, `eoc` or `assessment`.
    public var slot: String
    public var uploadProtocol: UploadProtocol
    public var length: Int64?
    public var offset: Int64
    /// Extension to keep the original under (from the declared media type or file name).
    public var fileExtension: String
    /// The client's file name (tus `Upload-Metadata` `filename`), for the log only.
    public var fileName: String?
    public var recordedAt: Date?
    public var createdAt: Date
    public var updatedAt: Date
    /// After this instant an upload still receiving is deleted with its bytes; an answered
    /// upload's answer is forgotten.
    public var expiresAt: Date
    public var idempotencyKey: String?
    /// The id the recording gets if accepted, fixed at creation: a completion interrupted by
    /// a crash finds out whether its admission committed.
    public var submissionId: String
    public var state: State
    public var answerStatus: Int?
    public var answerBody: Data?

    public init(id: String, studentId: String, enrolmentId: Int64?, slot: String, uploadProtocol: UploadProtocol, length: Int64?,
                fileExtension: String, fileName: String?, recordedAt: Date?, now: Date, expiresAt: Date, idempotencyKey: String?,
                submissionId: String) {
        self.id = id
        self.studentId = studentId
        self.enrolmentId = enrolmentId
        self.slot = slot
        self.uploadProtocol = uploadProtocol
        self.length = length
        offset = 0
        self.fileExtension = fileExtension
        self.fileName = fileName
        self.recordedAt = recordedAt
        createdAt = now
        updatedAt = now
        self.expiresAt = expiresAt
        self.idempotencyKey = idempotencyKey
        self.submissionId = submissionId
        state = .receiving
    }

    /// Offset and length as the protocols see them.
    public var progress: UploadProgress { UploadProgress(offset: offset, length: length) }

    /// Bytes this upload may still come to hold in staging, counted against the budget.
    public func reservedBytes(maxUploadBytes: Int64) -> Int64 {
        state == .answered ? 0 : (length ?? maxUploadBytes)
    }
}
