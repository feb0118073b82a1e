import Foundation
import TilawaCore
import TilawaStore

/// A consent to the recording policy as the API shows it, with the programme's terms:
/// `{student_id, version, given_by, guardian_name, given_at, withdrawn_at, counts, required,
/// policy_url, policy_version}`, and once withdrawn `erasure_request`, the request the student
/// may make next.
struct ConsentResource: Encodable, Sendable {
    let studentId: String
    let version: String
    let givenBy: String
    let guardianName: String?
    let givenAt: Date
    let withdrawnAt: Date?
    /// Whether it lets the student record now: current, and to the policy's version when one is set.
    let counts: Bool
    /// `privacy.require_consent`.
    let required: Bool
    let policyUrl: String?
    let policyVersion: String?
    let erasureRequest: ActionLink?

    init(_ consent: ConsentRecord, terms: ConsentTerms, offeringErasure: Bool = false) {
        studentId = consent.studentId
        version = consent.version
        givenBy = consent.givenBy.rawValue
        guardianName = consent.guardianName
        givenAt = consent.givenAt
        withdrawnAt = consent.withdrawnAt
        counts = consent.isCurrent && terms.counts(version: consent.version)
        required = terms.required
        policyUrl = terms.policyURL
        policyVersion = terms.policyVersion
        erasureRequest = offeringErasure ? ActionLink(href: "/v1/students/\(consent.studentId)/erasure-request", method: "POST") : nil
    }

    enum CodingKeys: String, CodingKey {
        case studentId, version, givenBy, guardianName, givenAt, withdrawnAt, counts, required, policyUrl, policyVersion, erasureRequest
    }

    /// Every member, absent values as `null`; `erasure_request` only on a withdrawal's answer.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(studentId, forKey: .studentId)
        try container.encode(version, forKey: .version)
        try container.encode(givenBy, forKey: .givenBy)
        try container.encode(guardianName, forKey: .guardianName)
        try container.encode(givenAt, forKey: .givenAt)
        try container.encode(withdrawnAt, forKey: .withdrawnAt)
        try container.encode(counts, forKey: .counts)
        try container.encode(required, forKey: .required)
        try container.encode(policyUrl, forKey: .policyUrl)
        try container.encode(policyVersion, forKey: .policyVersion)
        try container.encodeIfPresent(erasureRequest, forKey: .erasureRequest)
    }
}
