import Foundation
import HTTPTypes
import TilawaCore

extension APIProblem {
    /// A consent's or an erasure request's refusal (DESIGN §16): 404 `unknown_student` (the
    /// answer for any student the caller may not reach), 404 `no_consent` (with whether one is
    /// `required` and the policy's `policy_url` and `policy_version`) and `no_erasure_request`
    /// (nothing to show, withdraw or cancel), 422 `guardian_required` (with `adult_age`) and
    /// `policy_version_mismatch` (with the current `policy_version`).
    static func privacy(_ refusal: PrivacyRefusal, terms: ConsentTerms) -> APIProblem {
        switch refusal {
        case .unknownStudent:
            return .unknownStudent
        case .noConsent:
            return APIProblem(.notFound, code: refusal.code, detail: refusal.message, extras: policyMembers(terms))
        case .noErasureRequest:
            return APIProblem(.notFound, code: refusal.code, detail: refusal.message)
        case let .guardianRequired(adultAge):
            return APIProblem(.unprocessableContent, code: refusal.code, detail: refusal.message, extras: ["adult_age": .int(adultAge)])
        case .policyVersionMismatch:
            return APIProblem(.unprocessableContent, code: refusal.code, detail: refusal.message, extras: policyMembers(terms))
        }
    }

    /// `required`, `policy_url` and `policy_version` (null when not configured).
    static func policyMembers(_ terms: ConsentTerms) -> [String: ProblemValue] {
        ["required": .bool(terms.required), "policy_url": terms.policyURL.map(ProblemValue.string) ?? .null,
         "policy_version": terms.policyVersion.map(ProblemValue.string) ?? .null]
    }
}
