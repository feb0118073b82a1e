import Foundation

/// Where one enrolment's end-of-course assessment stands (timeline `eoc`).
public struct EOCStatus: Sendable, Hashable {
    /// The stable states sent in JSON.
    public enum State: String, Sendable, Hashable, Codable, CaseIterable {
        /// Not open yet, not enough weeks, not placed, or the semester has closed.
        case locked
        /// Open to this student; no recording yet.
        case available
        /// A recording is waiting for its result.
        case underReview = "under_review"
        /// The coach's result is `pass`: the level is graduated.
        case passed
        /// The coach's result is `retake`: one more recording is allowed while the semester is open.
        case retake
    }

    /// The state.
    public let state: State
    /// Distinct weeks submitted.
    public let have: Int
    /// Distinct weeks needed.
    public let need: Int
    /// When the assessment opens (the unlock of the level's opening week).
    public let opensAt: Date
    /// When it closes with the semester.
    public let closesAt: Date
    /// The newest end-of-course recording, if any.
    public let submissionId: Identifier?
    /// The first week a late joiner owes (nil: from week 1).
    public var joinedInWeek: Int? = nil
    /// The rule for late joiners the `need` follows.
    public var lateJoiners: SubmissionRules.LateJoiners = .strict

    /// Weekly submissions still needed to unlock it.
    public var missing: Int { max(0, need - have) }

    /// One sentence for the timeline header, times in `timeZone`.
    public func message(
        now: Date, in timeZone: TimeZone, levelName: String?, resultsExpectedBy: Date?, businessDays: Int
    ) -> String {
        switch state {
        case .locked where now >= closesAt:
            return "The end-of-course assessment closed with the semester."
        case .locked where missing > 0:
            let weeks = missing == 1 ? "1 more weekly submission" : "\(missing) more weekly submissions"
            // A late joiner is told which rule applies: whether the weeks before they joined count.
            let joined = switch (joinedInWeek, lateJoiners) {
            case let (week?, .strict): " Weeks before you joined in week \(week) count too, and are never late."
            case let (week?, .proportional): " Only the weeks since you joined in week \(week) are needed."
            case (nil, _): ""
            }
            return "Complete \(weeks) to unlock the end-of-course assessment." + joined
        case .locked:
            return "The end-of-course assessment opens on \(HumanDate.format(opensAt, in: timeZone))."
        case .available:
            return "Your end-of-course assessment is open until \(HumanDate.format(closesAt, in: timeZone))."
        case .underReview:
            let by = resultsExpectedBy.map { " Results expected by \(HumanDate.day($0, in: timeZone))." } ?? ""
            return "Your end-of-course assessment is being reviewed; results take up to \(businessDays == 1 ? "1 business day" : "\(businessDays) business days").\(by)"
        case .passed:
            return "Congratulations! You've graduated \(levelName ?? "this level")."
        case .retake:
            return "Your coach has asked for a retake: record the end-of-course assessment once more before \(HumanDate.format(closesAt, in: timeZone))."
        }
    }
}
