import Foundation

/// The programme's submission rules (DESIGN §1) as pure functions of a student's history and `now`.
///
/// `history` is always one student's submissions; `failed` entries are ignored (their
/// attempt is returned, and they do not cover a week).
public struct SubmissionRules: Sendable, Hashable, Codable {
    /// The semester's weeks.
    public let calendar: SemesterCalendar
    /// The attempt rule.
    public let attemptWindow: AttemptWindow
    /// Distinct weeks with an accepted submission needed before `eoc` (default 12).
    public let eocRequiredWeeks: Int

    /// The rules for one semester.
    ///
    /// - Throws: `invalid_eoc_required_weeks` unless 0…`calendar.weekCount`.
    public init(
        calendar: SemesterCalendar,
        attemptWindow: AttemptWindow = .standard,
        eocRequiredWeeks: Int = 12
    ) throws(RuleConfigurationError) {
        guard (0...calendar.weekCount).contains(eocRequiredWeeks) else {
            throw .invalidEOCRequiredWeeks(eocRequiredWeeks, weekCount: calendar.weekCount)
        }
        self.calendar = calendar
        self.attemptWindow = attemptWindow
        self.eocRequiredWeeks = eocRequiredWeeks
    }

    /// Decides whether a recording for `slot` received at `now` is accepted.
    ///
    /// Checks, first refusal wins: the slot exists (`invalid_week`); the semester is not
    /// closed (`semester_closed`, every kind); a week has unlocked (`week_locked`); `eoc`
    /// has enough distinct weeks (`eoc_not_eligible`); an attempt is free for counted kinds
    /// (`attempt_limit`). Catching up on a past week is admitted with `late = true`.
    /// Call it only after the audio has been validated: a rejected upload uses no attempt.
    public func admit(slot: Slot, history: [AcceptedSubmission], now: Date) -> Result<Admission, RuleRefusal> {
        guard slot.isValid(weekCount: calendar.weekCount) else {
            return .failure(.invalidWeek(input: slot.description, weekCount: calendar.weekCount))
        }
        if calendar.isClosed(at: now) {
            return .failure(.semesterClosed(closedAt: calendar.closesAt))
        }
        if case let .week(week) = slot, !calendar.isUnlocked(week: week, at: now) {
            return .failure(.weekLocked(week: week, unlocksAt: calendar.unlock(week: week)))
        }
        if slot == .eoc {
            let have = distinctWeeksSubmitted(history: history)
            if have < eocRequiredWeeks {
                return .failure(.eocNotEligible(have: have, need: eocRequiredWeeks))
            }
        }
        let counted = history.filter { $0.state.countsAsAccepted && attemptWindow.counts($0.kind) }.map(\.receivedAt)
        var attempts = attemptWindow.status(countedAt: counted, now: now)
        if attemptWindow.counts(slot.kind) {
            if attempts.remaining == 0 {
                return .failure(.attemptLimit(
                    nextAttemptAt: attempts.nextAttemptAt ?? now.addingTimeInterval(attemptWindow.length),
                    used: attempts.used,
                    limit: attempts.limit
                ))
            }
            attempts = attemptWindow.status(countedAt: counted + [now], now: now)
        }
        let late = slot.week.map { calendar.isLate(week: $0, receivedAt: now) } ?? false
        let supersedes = history
            .filter { $0.slot == slot && $0.state.isSupersedable }
            .sorted { ($0.receivedAt, $0.id) < ($1.receivedAt, $1.id) }
            .map(\.id)
        return .success(Admission(late: late, attempts: attempts, supersedes: supersedes))
    }

    /// The attempt status at `now` (timeline `attempts`).
    public func attemptStatus(history: [AcceptedSubmission], now: Date) -> AttemptStatus {
        attemptWindow.status(of: history, now: now)
    }

    /// Distinct weeks 1…`weekCount` with at least one accepted (not failed) submission.
    public func distinctWeeksSubmitted(history: [AcceptedSubmission]) -> Int {
        Set(history.lazy.filter(\.state.countsAsAccepted).compactMap(\.slot.week)
            .filter { (1...calendar.weekCount).contains($0) }).count
    }

    /// Whether the student may submit `eoc` as far as weeks go (closing and attempts aside).
    public func eocEligible(history: [AcceptedSubmission]) -> Bool {
        distinctWeeksSubmitted(history: history) >= eocRequiredWeeks
    }

    /// Weeks whose deadline has passed at `now` with no accepted submission (DESIGN §1 behind count).
    public func behindCount(history: [AcceptedSubmission], now: Date) -> Int {
        let covered = Set(history.lazy.filter(\.state.countsAsAccepted).compactMap(\.slot.week))
        return (1...calendar.weekCount).count { week in
            calendar.isLate(week: week, receivedAt: now) && !covered.contains(week)
        }
    }

    /// The timeline sentence about catching up, e.g. "You have 2 submissions to catch up on. You can submit up to 2 this week."
    ///
    /// Zero behind: "You are up to date."; one: "1 submission"; no attempt left: names
    /// when the next opens; semester closed: says missed weeks can no longer be sent.
    /// Dates are in the programme time zone.
    public func catchUpMessage(history: [AcceptedSubmission], now: Date) -> String {
        let behind = behindCount(history: history, now: now)
        guard behind > 0 else { return "You are up to date." }
        let noun = behind == 1 ? "1 submission" : "\(behind) submissions"
        if calendar.isClosed(at: now) {
            return "You missed \(noun); the semester has closed, so \(behind == 1 ? "it" : "they") can no longer be sent."
        }
        let attempts = attemptStatus(history: history, now: now)
        let second = switch attempts.remaining {
        case 0:
            "Your next attempt opens on \(HumanDate.format(attempts.nextAttemptAt ?? now, in: calendar.timeZone, roundingUp: true))."
        case 1:
            "You can submit 1 this week."
        default:
            "You can submit up to \(attempts.remaining) this week."
        }
        return "You have \(noun) to catch up on. \(second)"
    }
}
