import Foundation
import TilawaStore

/// A student's request for erasure as the API shows it: `{student_id, requested_at, due_at,
/// cancelled_at}`, and while it is pending `cancel`, how to take it back.
struct ErasureRequestResource: Encodable, Sendable {
    let studentId: String
    let requestedAt: Date
    let dueAt: Date
    let cancelledAt: Date?
    let cancel: ActionLink?

    init(_ request: ErasureRequestRecord) {
        studentId = request.studentId
        requestedAt = request.requestedAt
        dueAt = request.dueAt
        cancelledAt = request.cancelledAt
        cancel = request.isPending ? ActionLink(href: "/v1/students/\(request.studentId)/erasure-request", method: "DELETE") : nil
    }

    enum CodingKeys: String, CodingKey {
        case studentId, requestedAt, dueAt, cancelledAt, cancel
    }

    /// Every member, `cancelled_at` as `null` while pending; `cancel` only then.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(studentId, forKey: .studentId)
        try container.encode(requestedAt, forKey: .requestedAt)
        try container.encode(dueAt, forKey: .dueAt)
        try container.encode(cancelledAt, forKey: .cancelledAt)
        try container.encodeIfPresent(cancel, forKey: .cancel)
    }
}
