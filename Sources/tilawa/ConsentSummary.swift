import Foundation
import TilawaCore
import TilawaStore

/// A consent as `tilawa consent … --json` prints it.
struct ConsentSummary: Encodable {
    let studentId: String
    let version: String
    let givenBy: String
    let guardianName: String?
    let givenAt: Date
    let withdrawnAt: Date?
    let withdrawnBy: String?
    /// Whether it lets the student record now (current, and to `privacy.policy_version` when set).
    let counts: Bool

    init(_ consent: ConsentRecord, terms: ConsentTerms) {
        studentId = consent.studentId
        version = consent.version
        givenBy = consent.givenBy.rawValue
        guardianName = consent.guardianName
        givenAt = consent.givenAt
        withdrawnAt = consent.withdrawnAt
        withdrawnBy = consent.withdrawnBy
        counts = consent.isCurrent && terms.counts(version: consent.version)
    }

    enum CodingKeys: String, CodingKey {
        case studentId, version, givenBy, guardianName, givenAt, withdrawnAt, withdrawnBy, counts
    }

    /// Every member, absent values as `null`.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(studentId, forKey: .studentId)
        try container.encode(version, forKey: .version)
        try container.encode(givenBy, forKey: .givenBy)
        try container.encode(guardianName, forKey: .guardianName)
        try container.encode(givenAt, forKey: .givenAt)
        try container.encode(withdrawnAt, forKey: .withdrawnAt)
        try container.encode(withdrawnBy, forKey: .withdrawnBy)
        try container.encode(counts, forKey: .counts)
    }

    /// One line: `version 2026-09, given by guardian (Amina Rahman) at 2026-11-22T15:00:00Z`.
    static func line(_ consent: ConsentRecord) -> String {
        let giver = consent.guardianName.map { "guardian (\($0))" } ?? consent.givenBy.rawValue
        var text = "version \(consent.version), given by \(giver) at \(consent.givenAt.formatted(.iso8601))"
        if let withdrawnAt = consent.withdrawnAt {
            text += ", withdrawn at \(withdrawnAt.formatted(.iso8601))" + (consent.withdrawnBy.map { " by \($0)" } ?? "")
        }
        return text
    }
}
