import Foundation

/// What the back office changed about one enrolment's rules (DESIGN §11): moved deadlines,
/// extra recordings, paused weeks and whether the enrolment is active. `SubmissionRules`
/// reads these everywhere it reads the calendar or the attempt window, so the timeline, the
/// reminders, `late`, the behind count and the upload's admission agree.
public struct RuleOverrides: Sendable, Hashable, Codable {
    /// Whether the student is taking part.
    public enum Standing: String, Sendable, Hashable, Codable, CaseIterable {
        /// Recording as usual.
        case active
        /// Away for a while: nothing is accepted, the weeks paused over are not owed, no reminders.
        case paused
        /// Gone for good this semester: nothing is accepted, no reminders.
        case left
    }

    /// Recordings granted beyond the attempt window, usable until `expiresAt`.
    public struct Grant: Sendable, Hashable, Codable {
        /// The grant's id (`grt_…`), stored on the submission that uses it.
        public let id: String
        /// Recordings not used yet (the grant's count less the standing recordings that used it).
        public let remaining: Int
        /// The grant cannot be used from this instant on.
        public let expiresAt: Date

        public init(id: String, remaining: Int, expiresAt: Date) {
            self.id = id
            self.remaining = remaining
            self.expiresAt = expiresAt
        }
    }

    /// Moved deadlines by slot (`.week(n)` or `.eoc`): a recording up to the instant is on
    /// time, and the slot is accepted up to it even after the semester closes.
    public var deadlines: [Slot: Date]
    /// The student's grants (any state; `usable(at:)` picks).
    public var grants: [Grant]
    /// Weeks the enrolment does not owe because it was paused at their deadline.
    public var excusedWeeks: Set<Int>
    /// Active, paused or left.
    public var standing: Standing

    public init(deadlines: [Slot: Date] = [:], grants: [Grant] = [], excusedWeeks: Set<Int> = [], standing: Standing = .active) {
        self.deadlines = deadlines
        self.grants = grants
        self.excusedWeeks = excusedWeeks
        self.standing = standing
    }

    /// No change to the rules.
    public static let none = RuleOverrides()

    /// The grant a recording at `now` uses once the window is full: of those with a recording
    /// left and not expired, the earliest to expire (ties by id, so the choice is stable).
    public func usableGrant(at now: Date) -> Grant? {
        grants.filter { $0.remaining > 0 && $0.expiresAt > now }
            .min { ($0.expiresAt, $0.id) < ($1.expiresAt, $1.id) }
    }

    /// Recordings the grants still allow at `now`.
    public func grantedRemaining(at now: Date) -> Int {
        grants.filter { $0.expiresAt > now }.reduce(0) { $0 + max(0, $1.remaining) }
    }
}
