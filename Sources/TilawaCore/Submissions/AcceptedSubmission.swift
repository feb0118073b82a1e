import Foundation

/// One of a student's accepted submissions, as the rules need to see it.
///
/// The store passes all of a student's submissions; entries in state `failed` are
/// ignored everywhere, because a failed submission returns its attempt (DESIGN §1).
public struct AcceptedSubmission: Sendable, Hashable, Codable {
    /// The submission id.
    public let id: Identifier
    /// The slot it was submitted for.
    public let slot: Slot
    /// When the upload was accepted (the instant the attempt window counts from).
    public let receivedAt: Date
    /// Its current state.
    public let state: SubmissionState
    /// For an answered end-of-course assessment, the coach's result.
    public let result: EOCResult?
    /// Whether it used a back-office grant instead of the attempt window (it then does not
    /// count in the window; withdrawn or failed, it gives the grant back).
    public var usesGrant = false

    /// A submission as stored.
    public init(id: Identifier, slot: Slot, receivedAt: Date, state: SubmissionState, result: EOCResult? = nil, usesGrant: Bool = false) {
        self.usesGrant = usesGrant
        self.id = id
        self.slot = slot
        self.receivedAt = receivedAt
        self.state = state
        self.result = result
    }

    /// Its kind, from its slot.
    public var kind: SubmissionKind { slot.kind }

    private enum CodingKeys: String, CodingKey {
        case id, slot, state, result
        case receivedAt = "received_at"
    }
}
