import Foundation

/// The attempt rule: at most `limit` accepted recordings per rolling `length` per student (DESIGN §1).
///
/// The window at `now` is the half-open interval (now − length, now]: a recording exactly
/// `length` old no longer counts. Length is absolute time (604 800 s by default), not
/// calendar days, so a DST change neither lengthens nor shortens it. Only kinds in
/// `countedKinds` count (`week` and `eoc`; `assessment` never does), and `failed`
/// submissions never do (their attempt is returned).
///
/// This is the rule only; the store must run the check and the insert in one transaction
/// so that simultaneous uploads cannot both take the last attempt.
public struct AttemptWindow: Sendable, Hashable, Codable {
    /// The programme's rule: 2 attempts per 7 days, counting `week` and `eoc`.
    public static let standard = AttemptWindow(checkedLimit: 2, length: 604_800, countedKinds: [.week, .eoc])

    /// Attempts allowed per window (≥ 1).
    public let limit: Int
    /// Window length in seconds (> 0).
    public let length: TimeInterval
    /// The kinds that use an attempt.
    public let countedKinds: Set<SubmissionKind>

    /// A window with a configured limit and length.
    ///
    /// - Throws: `invalid_attempt_limit` (< 1), `invalid_attempt_window_length` (not > 0 or not finite).
    public init(
        limit: Int = 2,
        length: TimeInterval = 604_800,
        countedKinds: Set<SubmissionKind> = [.week, .eoc]
    ) throws(RuleConfigurationError) {
        guard limit >= 1 else { throw .invalidAttemptLimit(limit) }
        guard length.isFinite, length > 0 else { throw .invalidAttemptWindowLength(length) }
        self.init(checkedLimit: limit, length: length, countedKinds: countedKinds)
    }

    private init(checkedLimit: Int, length: TimeInterval, countedKinds: Set<SubmissionKind>) {
        self.limit = checkedLimit
        self.length = length
        self.countedKinds = countedKinds
    }

    /// Whether a recording of `kind` uses an attempt.
    public func counts(_ kind: SubmissionKind) -> Bool {
        countedKinds.contains(kind)
    }

    /// The status at `now` for a student's submissions (failed ones and uncounted kinds ignored).
    public func status(of history: some Sequence<AcceptedSubmission>, now: Date) -> AttemptStatus {
        status(countedAt: history.lazy.filter { $0.state.countsAsAccepted && counts($0.kind) }.map(\.receivedAt), now: now)
    }

    /// The status at `now` given the instants of counted recordings (any order, any age).
    ///
    /// Recordings stamped after `now` (the clock was stepped back) still count: a clock
    /// correction must never hand out an extra attempt.
    ///
    /// When `used ≥ limit`, `nextAttemptAt` is the instant `used` drops below `limit`:
    /// the (used − limit + 1)-th oldest recording in the window + `length`, which with the
    /// default limit and a full window is "the oldest in the window + 7 days".
    public func status(countedAt instants: some Sequence<Date>, now: Date) -> AttemptStatus {
        let windowStart = now.addingTimeInterval(-length)
        let inWindow = instants.filter { $0 > windowStart }.sorted()
        let used = inWindow.count
        let remaining = max(0, limit - used)
        let nextAttemptAt: Date? = used >= limit ? inWindow[used - limit].addingTimeInterval(length) : nil
        return AttemptStatus(used: used, limit: limit, remaining: remaining, nextAttemptAt: nextAttemptAt)
    }

    private enum CodingKeys: String, CodingKey {
        case limit
        case length = "length_seconds"
        case countedKinds = "counted_kinds"
    }

    /// Decodes `{limit, length_seconds, counted_kinds}` and validates like the initialiser.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let limit = try container.decodeIfPresent(Int.self, forKey: .limit) ?? 2
        let length = try container.decodeIfPresent(TimeInterval.self, forKey: .length) ?? 604_800
        let kinds = try container.decodeIfPresent(Set<SubmissionKind>.self, forKey: .countedKinds) ?? [.week, .eoc]
        do {
            try self.init(limit: limit, length: length, countedKinds: kinds)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .limit, in: container, debugDescription: error.description)
        }
    }

    /// Encodes `{limit, length_seconds, counted_kinds}` (kinds sorted, so output is stable).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(limit, forKey: .limit)
        try container.encode(length, forKey: .length)
        try container.encode(countedKinds.map(\.rawValue).sorted(), forKey: .countedKinds)
    }
}
