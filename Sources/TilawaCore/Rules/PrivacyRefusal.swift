import Foundation

/// Why a consent or an erasure request cannot be recorded, withdrawn or cancelled (DESIGN
/// §16); `code` is stable, `message` one plain sentence.
public enum PrivacyRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// No such student, or one erased.
    case unknownStudent(String)
    /// A minor's consent must be a guardian's, and a guardian's must name the guardian.
    case guardianRequired(adultAge: Int)
    /// `privacy.policy_version` is set and the consent names another version.
    case policyVersionMismatch(given: String, current: String)
    /// The student has no current consent (to show or withdraw).
    case noConsent(String)
    /// The student has no pending erasure request (to show or cancel).
    case noErasureRequest(String)

    public var code: String {
        switch self {
        case .unknownStudent: "unknown_student"
        case .guardianRequired: "guardian_required"
        case .policyVersionMismatch: "policy_version_mismatch"
        case .noConsent: "no_consent"
        case .noErasureRequest: "no_erasure_request"
        }
    }

    public var message: String {
        switch self {
        case let .unknownStudent(id):
            "No student \(MessageText.quoted(id)) here."
        case let .guardianRequired(adultAge):
            "A student under \(adultAge) needs their guardian's consent: send given_by guardian with the guardian's name."
        case let .policyVersionMismatch(given, current):
            "The recording policy is now version \(MessageText.quoted(current)), not \(MessageText.quoted(given)); read and accept the current one."
        case let .noConsent(id):
            "Student \(MessageText.quoted(id)) has no consent to the recording policy on record."
        case let .noErasureRequest(id):
            "Student \(MessageText.quoted(id)) has no pending request for erasure."
        }
    }

    /// `code: message`, for logs.
    public var description: String { "\(code): \(message)" }
}
