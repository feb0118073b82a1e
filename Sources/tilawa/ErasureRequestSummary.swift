import Foundation
import TilawaStore

/// A pending request as `tilawa erasure-requests --json` and `tilawa erasure-request cancel --json` print it.
struct ErasureRequestSummary: Encodable {
    let studentId: String
    let requestedAt: Date
    let requestedBy: String
    let dueAt: Date
    let cancelledAt: Date?

    init(_ request: ErasureRequestRecord) {
        studentId = request.studentId
        requestedAt = request.requestedAt
        requestedBy = request.requestedBy
        dueAt = request.dueAt
        cancelledAt = request.cancelledAt
    }

    enum CodingKeys: String, CodingKey { case studentId, requestedAt, requestedBy, dueAt, cancelledAt }

    /// Every member, `cancelled_at` as `null` while pending.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(studentId, forKey: .studentId)
        try container.encode(requestedAt, forKey: .requestedAt)
        try container.encode(requestedBy, forKey: .requestedBy)
        try container.encode(dueAt, forKey: .dueAt)
        try container.encode(cancelledAt, forKey: .cancelledAt)
    }
}
