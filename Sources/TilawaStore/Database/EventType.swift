/// Every notification type Tilawa sends; the raw value is the `type` member (openapi.yaml
/// `EventType` lists exactly these, and a test holds the two together).
public enum EventType: String, Sendable, CaseIterable {
    case submissionReceived = "submission_received"
    case submissionFailed = "submission_failed"
    case feedbackReady = "feedback_ready"
    case feedbackOverdue = "feedback_overdue"
    case enrolled
    case placementReady = "placement_ready"
    case eocAvailable = "eoc_available"
    case eocResultsReady = "eoc_results_ready"
    case weekUnlocked = "week_unlocked"
    case deadlineReminder = "deadline_reminder"
    case submissionReadyForReview = "submission_ready_for_review"
    case studentFallingBehind = "student_falling_behind"
    case questionAsked = "question_asked"
    case questionAnswered = "question_answered"
    case annotationAdded = "annotation_added"
    case coachDigest = "coach_digest"
    case submissionWithdrawn = "submission_withdrawn"
    case storageLow = "storage_low"
    case announcement
    case submissionRefused = "submission_refused"
    case deadlineExtended = "deadline_extended"
    case attemptsGranted = "attempts_granted"
    case feedbackMoved = "feedback_moved"
    case enrolmentChanged = "enrolment_changed"
    case coverStarted = "cover_started"
    case deskLinkRequested = "desk_link_requested"
    /// To operations: a student asked for their erasure (DESIGN §16).
    case erasureRequested = "erasure_requested"
}

extension EventType {
    /// The push category a student may turn off for this type; nil for what a student always
    /// hears (a recording lost or refused, a welcome, their own actions are never pushed).
    public var pushCategory: PushCategory? {
        switch self {
        case .feedbackReady, .annotationAdded, .placementReady, .eocResultsReady: .feedback
        case .weekUnlocked, .deadlineReminder, .eocAvailable, .deadlineExtended: .deadlines
        case .announcement: .announcements
        case .questionAnswered: .questions
        default: nil
        }
    }
}
