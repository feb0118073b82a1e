import Foundation
import TilawaCore
import TilawaStore

/// One audit entry as the API and `tilawa audit --json` show it.
public struct AuditEntryResource: Encodable, Sendable {
    let id: String
    let at: Date
    let actor: String
    let action: String
    let studentId: String?
    let otherStudentId: String?
    let coachId: String?
    let otherCoachId: String?
    let reason: String?
    let before: [String: MessageValue]?
    let after: [String: MessageValue]?

    public init(_ record: AuditRecord) {
        self.init(AuditPage.Entry(id: "audit:\(record.id ?? 0)", at: record.at, actor: record.actor, action: record.action,
                                  studentId: record.studentId, otherStudentId: record.otherStudentId, coachId: record.coachId,
                                  otherCoachId: record.otherCoachId, reason: record.reason, before: record.before, after: record.after))
    }

    public init(_ entry: AuditPage.Entry) {
        func object(_ text: String?) -> [String: MessageValue]? {
            text.flatMap { try? JSONDecoder().decode([String: MessageValue].self, from: Data($0.utf8)) }
        }
        id = entry.id
        at = entry.at
        actor = entry.actor
        action = entry.action
        studentId = entry.studentId
        otherStudentId = entry.otherStudentId
        coachId = entry.coachId
        otherCoachId = entry.otherCoachId
        reason = entry.reason
        before = object(entry.before)
        after = object(entry.after)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(at, forKey: .at)
        try container.encode(actor, forKey: .actor)
        try container.encode(action, forKey: .action)
        try container.encode(studentId, forKey: .studentId)
        try container.encode(otherStudentId, forKey: .otherStudentId)
        try container.encode(coachId, forKey: .coachId)
        try container.encode(otherCoachId, forKey: .otherCoachId)
        try container.encode(reason, forKey: .reason)
        try container.encode(before, forKey: .before)
        try container.encode(after, forKey: .after)
    }

    enum CodingKeys: String, CodingKey {
        case id, at, actor, action, reason, before, after
        case studentId = "student_id"
        case otherStudentId = "other_student_id"
        case coachId = "coach_id"
        case otherCoachId = "other_coach_id"
    }
}

extension AuditEntryResource {
    /// One line for a terminal: `2027-03-04T10:00:00Z  amina  deadline_extended  student S1001  "ill"  due_at: … → …`.
    public var line: String {
        var parts = [at.formatted(.iso8601), actor, action]
        if let studentId { parts.append("student \(studentId)" + (otherStudentId.map { " (from \($0))" } ?? "")) }
        if let coachId { parts.append("coach \(coachId)" + (otherCoachId.map { " (and \($0))" } ?? "")) }
        if let reason { parts.append("\"\(reason.replacingOccurrences(of: "\n", with: " "))\"") }
        let keys = Set((before ?? [:]).keys).union((after ?? [:]).keys).sorted()
        for key in keys where before?[key] != after?[key] {
            parts.append("\(key): \(before?[key].map(Self.text) ?? "–") → \(after?[key].map(Self.text) ?? "–")")
        }
        return parts.joined(separator: "  ")
    }

    static func text(_ value: MessageValue) -> String {
        switch value {
        case let .text(text): text
        case let .int(number): String(number)
        case let .number(number): String(number)
        case let .instant(date): date.formatted(.iso8601)
        }
    }
}

/// `GET /v1/audit`'s answer.
struct AuditPageResource: Encodable, Sendable {
    let entries: [AuditEntryResource]
    let next: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entries, forKey: .entries)
        try container.encode(next, forKey: .next)
    }

    enum CodingKeys: String, CodingKey { case entries, next }
}
