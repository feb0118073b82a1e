import Foundation
import GRDB
import TilawaCore

/// An upload refused for its audio or by a rule: the audit trail, never a submission.
public struct RejectionRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "rejection"
    public var id: Int64?
    public var studentId: String
    public var slot: String
    public var receivedAt: Date
    /// The primary reason code (`too_quiet`, `week_locked`, …).
    public var code: String
    /// Every reason code that applied.
    public var reasons: [String]
    public var message: String
    public var detail: String
    public var analysis: AudioAnalysis?
    public var origin: SubmissionOrigin
    public var bytes: Int

    /// Creates a record (the id is assigned on insert).
    public init(studentId: String, slot: String, receivedAt: Date, code: String, reasons: [String], message: String,
                detail: String, analysis: AudioAnalysis?, origin: SubmissionOrigin, bytes: Int) {
        self.studentId = studentId
        self.slot = slot
        self.receivedAt = receivedAt
        self.code = code
        self.reasons = reasons
        self.message = message
        self.detail = detail
        self.analysis = analysis
        self.origin = origin
        self.bytes = bytes
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
