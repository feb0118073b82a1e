/// Where a submission is in its life (DESIGN §1: `processing` → `awaiting_feedback` → `feedback_ready`).
///
/// Raw values are the stable codes stored in the database and sent in JSON.
public enum SubmissionState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Accepted; the Opus encode has not finished yet.
    case processing
    /// Encoded and waiting for the coach's reply.
    case awaitingFeedback = "awaiting_feedback"
    /// The coach has replied.
    case feedbackReady = "feedback_ready"
    /// Replaced by a newer accepted recording of the same slot before the coach replied.
    case superseded
    /// An internal error lost it; the attempt it used is returned (DESIGN §1).
    case failed
    /// Taken back by the student shortly after sending; the attempt it used is returned.
    case withdrawn

    /// Whether the submission still counts as accepted: it uses an attempt and covers its week.
    ///
    /// `failed` and `withdrawn` do not: their attempt is returned to the student.
    public var countsAsAccepted: Bool { self != .failed && self != .withdrawn }

    /// The states that do not count, as an SQL list: `('failed', 'withdrawn')`.
    public static let notCountedSQL = "('failed', 'withdrawn')"

    /// Whether a newer recording of the same slot turns this one into `superseded`.
    ///
    /// Only recordings the coach has not answered yet: a reviewed one keeps its feedback.
    public var isSupersedable: Bool { self == .processing || self == .awaitingFeedback }
}
