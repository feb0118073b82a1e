import Foundation

/// What the student's own privacy choices say about recording now (DESIGN §16), read in the
/// admission's transaction: a consent the programme requires and the student has not given
/// (or withdrew, or gave to another version of the policy), or an erasure they asked for that
/// is still pending. `SubmissionRules.admit` refuses every slot on either — the placement
/// assessment too.
public struct PrivacyStanding: Sendable, Hashable, Codable {
    /// The policy to accept, when a consent is required and none that counts is recorded.
    public var consentMissing: ConsentTerms?
    /// When the student asked for their erasure, and when it falls due, while the request is pending.
    public var erasureRequested: ErasureDates?

    /// A pending erasure request's instants.
    public struct ErasureDates: Sendable, Hashable, Codable {
        public var requestedAt: Date
        public var dueAt: Date

        public init(requestedAt: Date, dueAt: Date) {
            self.requestedAt = requestedAt
            self.dueAt = dueAt
        }
    }

    public init(consentMissing: ConsentTerms? = nil, erasureRequested: ErasureDates? = nil) {
        self.consentMissing = consentMissing
        self.erasureRequested = erasureRequested
    }

    /// Nothing stands in the way.
    public static let clear = PrivacyStanding()

    /// The refusal of any recording now: a pending erasure first (the student's own latest
    /// word), then a missing consent; nil when neither.
    public var refusal: RuleRefusal? {
        if let erasure = erasureRequested {
            return .erasurePending(requestedAt: erasure.requestedAt, dueAt: erasure.dueAt)
        }
        if let terms = consentMissing {
            return .consentRequired(policyURL: terms.policyURL ?? "", policyVersion: terms.policyVersion)
        }
        return nil
    }
}
