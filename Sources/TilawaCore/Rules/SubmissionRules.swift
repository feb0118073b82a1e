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
    /// The week whose unlock opens the end-of-course assessment (the level's, default 14).
    public let eocOpensWeek: Int
    /// Whether the enrolment has a level and a coach; before placement only the
    /// placement `assessment` is accepted.
    public let placed: Bool
    /// `program.placement_due_hours`: how soon a placement is promised (the `not_placed` sentence).
    public let placementDueHours: Double
    /// The first week the enrolment owes (DESIGN §14): the weeks before it may be recorded but
    /// are never late, missed or behind, and the end-of-course assessment needs no more weeks
    /// than were owed before it opens.
    public let owesFromWeek: Int
    /// What the back office changed: moved deadlines, grants, paused weeks, standing.
    public let overrides: RuleOverrides
    /// What a late joiner's end-of-course assessment needs (`program.eoc_late_joiners`).
    public let lateJoiners: LateJoiners
    /// The student's consent and erasure request as they stand (DESIGN §16): either refuses
    /// every slot, the placement assessment too.
    public let privacy: PrivacyStanding

    /// How many weeks a student placed after week 1 owes before the end-of-course assessment
    /// (`program.eoc.late_joiners`).
    public enum LateJoiners: String, Sendable, Hashable, Codable, CaseIterable {
        /// The programme's rule for everyone (the seeds: "12 of 15 weekly submissions plus a
        /// successful EOC"): a late joiner records the earlier weeks too — never late for
        /// them — to reach the same number.
        case strict
        /// No more weeks than the student owed before the assessment opens (placed in week
        /// 12 with the assessment opening in week 14: two).
        case proportional
    }

    /// The rules for one enrolment's semester.
    ///
    /// - Throws: `invalid_eoc_required_weeks` unless 0…`calendar.weekCount`;
    ///   `invalid_eoc_opens_week` unless 1…`calendar.weekCount`.
    public init(
        calendar: SemesterCalendar,
        attemptWindow: AttemptWindow = .standard,
        eocRequiredWeeks: Int = 12,
        eocOpensWeek: Int = 14,
        placed: Bool = true,
        placementDueHours: Double = 48,
        owesFromWeek: Int = 1,
        overrides: RuleOverrides = .none,
        lateJoiners: LateJoiners = .strict,
        privacy: PrivacyStanding = .clear
    ) throws(RuleConfigurationError) {
        guard (0...calendar.weekCount).contains(eocRequiredWeeks) else {
            throw .invalidEOCRequiredWeeks(eocRequiredWeeks, weekCount: calendar.weekCount)
        }
        guard (1...calendar.weekCount).contains(eocOpensWeek) else {
            throw .invalidEOCOpensWeek(eocOpensWeek, weekCount: calendar.weekCount)
        }
        self.calendar = calendar
        self.attemptWindow = attemptWindow
        let owedFrom = min(max(owesFromWeek, 1), calendar.weekCount + 1)
        self.owesFromWeek = owedFrom
        // The end-of-course assessment needs no more weeks than there were before it opens,
        // counted from week 1 (strict) or from the first week owed (proportional), less the
        // weeks a pause excused (the back office's deliberate act, under either rule).
        let countedFrom = lateJoiners == .proportional ? owedFrom : 1
        let excusedBeforeOpening = overrides.excusedWeeks.count { $0 >= countedFrom && $0 < eocOpensWeek }
        self.eocRequiredWeeks = min(eocRequiredWeeks, max(0, eocOpensWeek - countedFrom - excusedBeforeOpening))
        self.overrides = overrides
        self.lateJoiners = lateJoiners
        self.eocOpensWeek = eocOpensWeek
        self.placed = placed
        self.placementDueHours = placementDueHours
        self.privacy = privacy
    }

    /// The instant the end-of-course assessment opens: the unlock of `eocOpensWeek`.
    public var eocOpensAt: Date { calendar.unlock(week: eocOpensWeek) }

    /// The deadline of `week` for this enrolment: an extension's instant, else the calendar's.
    public func deadline(week: Int) -> Date {
        overrides.deadlines[.week(week)] ?? calendar.deadline(week: week)
    }

    /// Whether a recording of `week` at `receivedAt` is past this enrolment's deadline for it.
    public func isLate(week: Int, receivedAt: Date) -> Bool {
        if let extended = overrides.deadlines[.week(week)] { return receivedAt > extended }
        return calendar.isLate(week: week, receivedAt: receivedAt)
    }

    /// The instant `slot` stops being accepted: the semester's close, or an extension past it.
    public func closesAt(for slot: Slot) -> Date {
        max(calendar.closesAt, overrides.deadlines[slot] ?? .distantPast)
    }

    /// The phase at `instant`, with `eoc` covering the weeks the assessment is open:
    /// from `eocOpensAt` until the semester closes.
    public func phase(at instant: Date) -> SemesterPhase {
        if instant < calendar.unlock(week: 1) { return .preSemester }
        if calendar.isClosed(at: instant) { return .closed }
        return instant >= eocOpensAt ? .eoc : .active
    }

    /// Decides whether a recording for `slot` received at `now` is accepted.
    ///
    /// Checks, first refusal wins: the slot exists (`invalid_week`); for a slot other than the
    /// placement `assessment`, the enrolment is active (`enrolment_paused`, `enrolment_left`);
    /// for every slot, no erasure the student asked for is pending (`erasure_pending`) and a
    /// consent that counts is on record when one is required (`consent_required`). The placement
    /// `assessment` is then admitted any time, also outside a semester, and uses no attempt.
    /// Otherwise: the student is placed (`not_placed`); the semester is not closed
    /// (`semester_closed`); a week has unlocked (`week_locked`); `eoc` is open and the
    /// student has enough distinct weeks (`eoc_not_eligible`), is not waiting for a result
    /// (`eoc_under_review`) and has not passed (`eoc_passed`); an attempt is free for
    /// counted kinds (`attempt_limit`). Catching up on a past week is admitted with
    /// `late = true`. Call it only after the audio has been validated: a rejected upload
    /// uses no attempt.
    ///
    /// `history` is this enrolment's submissions (weeks, EOC, supersession); `elsewhere` the
    /// student's submissions in other semesters, which count only for attempts: the attempt
    /// window is the student's, across semesters. `recordedAt` (an offline recording's
    /// believable `Recorded-At`, see `RecordedAt`) decides `late` only.
    public func admit(
        slot: Slot, history: [AcceptedSubmission], now: Date, elsewhere: [AcceptedSubmission] = [], recordedAt: Date? = nil
    ) -> Result<Admission, RuleRefusal> {
        guard slot.isValid(weekCount: calendar.weekCount) else {
            return .failure(.invalidWeek(input: slot.description, weekCount: calendar.weekCount))
        }
        if slot != .assessment {
            switch overrides.standing {
            case .paused: return .failure(.enrolmentPaused)
            case .left: return .failure(.enrolmentLeft)
            case .active: break
            }
        }
        if let refusal = privacy.refusal { return .failure(refusal) }
        if slot != .assessment {
            guard placed else { return .failure(.notPlaced(placementDueHours: placementDueHours)) }
            if now >= closesAt(for: slot) {
                return .failure(.semesterClosed(closedAt: calendar.closesAt))
            }
        }
        if case let .week(week) = slot, !calendar.isUnlocked(week: week, at: now) {
            return .failure(.weekLocked(week: week, unlocksAt: calendar.unlock(week: week)))
        }
        if slot == .eoc {
            switch eocStatus(history: history, now: now).state {
            case .locked:
                return .failure(.eocNotEligible(
                    have: distinctWeeksSubmitted(history: history), need: eocRequiredWeeks,
                    opensAt: now < eocOpensAt ? eocOpensAt : nil))
            case .underReview: return .failure(.eocUnderReview)
            case .passed: return .failure(.eocPassed)
            case .available, .retake: break
            }
        }
        let counted = windowInstants(history + elsewhere)
        var attempts = attemptWindow.status(countedAt: counted, now: now)
        var grantId: String?
        if attemptWindow.counts(slot.kind) {
            if attempts.remaining > 0 {
                attempts = attemptWindow.status(countedAt: counted + [now], now: now)
            } else if let grant = overrides.usableGrant(at: now) {
                // The window is full: the recording uses a grant and stays out of the window.
                grantId = grant.id
            } else {
                return .failure(.attemptLimit(
                    nextAttemptAt: attempts.nextAttemptAt ?? now.addingTimeInterval(attemptWindow.length),
                    used: attempts.used,
                    limit: attempts.limit
                ))
            }
        }
        attempts = attempts.granting(overrides.grantedRemaining(at: now) - (grantId == nil ? 0 : 1))
        let late = slot.week.map { owes(week: $0) && isLate(week: $0, receivedAt: recordedAt ?? now) } ?? false
        let supersedes = history
            .filter { $0.slot == slot && $0.state.isSupersedable }
            .sorted { ($0.receivedAt, $0.id) < ($1.receivedAt, $1.id) }
            .map(\.id)
        return .success(Admission(late: late, attempts: attempts, supersedes: supersedes, grantId: grantId))
    }

    /// The attempt status at `now` (timeline `attempts`): the window's, with the grants'
    /// recordings added to `remaining` (and counted in `granted`).
    public func attemptStatus(history: [AcceptedSubmission], now: Date, elsewhere: [AcceptedSubmission] = []) -> AttemptStatus {
        attemptWindow.status(countedAt: windowInstants(history + elsewhere), now: now)
            .granting(overrides.grantedRemaining(at: now))
    }

    /// The instants the attempt window counts: standing recordings of counted kinds that did
    /// not use a grant.
    private func windowInstants(_ submissions: [AcceptedSubmission]) -> [Date] {
        submissions.filter { $0.state.countsAsAccepted && attemptWindow.counts($0.kind) && !$0.usesGrant }.map(\.receivedAt)
    }

    /// Distinct weeks 1…`weekCount` with at least one accepted (not failed) submission.
    public func distinctWeeksSubmitted(history: [AcceptedSubmission]) -> Int {
        Set(history.lazy.filter(\.state.countsAsAccepted).compactMap(\.slot.week)
            .filter { (1...calendar.weekCount).contains($0) }).count
    }

    /// Whether the student has the weeks the end-of-course assessment needs (opening week,
    /// closing and attempts aside).
    public func eocEligible(history: [AcceptedSubmission]) -> Bool {
        distinctWeeksSubmitted(history: history) >= eocRequiredWeeks
    }

    /// Where the end-of-course assessment stands for this enrolment at `now`.
    ///
    /// The newest end-of-course recording decides, once there is one: waiting for its
    /// result is `under_review`, a `pass` is `passed`, a `retake` allows one more recording
    /// (`retake`) until the semester closes. With none (or after a retake), it is
    /// `available` from the opening week's unlock to the close for a placed student with
    /// `eocRequiredWeeks` distinct weeks, `locked` otherwise.
    public func eocStatus(history: [AcceptedSubmission], now: Date) -> EOCStatus {
        let have = distinctWeeksSubmitted(history: history)
        let newest = history
            .filter { $0.slot == .eoc && $0.state.countsAsAccepted && $0.state != .superseded }
            .max { ($0.receivedAt, $0.id) < ($1.receivedAt, $1.id) }
        let closesAt = closesAt(for: .eoc)
        let open = placed && overrides.standing == .active && now >= eocOpensAt && now < closesAt
        let state: EOCStatus.State
        switch (newest?.state, newest?.result) {
        case (_, .pass?): state = .passed
        case (_, .retake?): state = open ? .retake : .locked
        case (.processing?, nil), (.awaitingFeedback?, nil): state = .underReview
        case (.feedbackReady?, nil):
            // Answered without a result (a reply recorded before results existed): a new
            // recording is allowed, as after a retake.
            state = open ? .retake : .locked
        default:
            state = open && have >= eocRequiredWeeks ? .available : .locked
        }
        return EOCStatus(state: state, have: have, need: eocRequiredWeeks, opensAt: eocOpensAt, closesAt: closesAt,
                         submissionId: newest?.id, joinedInWeek: owesFromWeek > 1 ? owesFromWeek : nil, lateJoiners: lateJoiners)
    }

    /// Whether the enrolment owes `week`: it is not before `owesFromWeek`, and the enrolment
    /// was not paused at its deadline.
    public func owes(week: Int) -> Bool { week >= owesFromWeek && !overrides.excusedWeeks.contains(week) }

    /// Owed weeks whose deadline has passed at `now` with no accepted submission (DESIGN §1
    /// behind count). Zero before placement: an unplaced student has no weeks to fall behind on.
    public func behindCount(history: [AcceptedSubmission], now: Date) -> Int {
        guard placed else { return 0 }
        let covered = Set(history.lazy.filter(\.state.countsAsAccepted).compactMap(\.slot.week))
        return (1...calendar.weekCount).count { week in
            owes(week: week) && isLate(week: week, receivedAt: now) && !covered.contains(week)
        }
    }

    /// The timeline sentence about catching up, e.g. "You have 2 submissions to catch up on. You can submit up to 2 this week."
    ///
    /// Zero behind: "You are up to date."; one: "1 submission"; no attempt left: names
    /// when the next opens; semester closed: says missed weeks can no longer be sent.
    /// Dates are in `zone` (the student's; the programme's when nil).
    public func catchUpMessage(history: [AcceptedSubmission], now: Date, elsewhere: [AcceptedSubmission] = [], in zone: TimeZone? = nil) -> String {
        let behind = behindCount(history: history, now: now)
        guard behind > 0 else { return "You are up to date." }
        let noun = behind == 1 ? "1 submission" : "\(behind) submissions"
        if calendar.isClosed(at: now) {
            return "You missed \(noun); the semester has closed, so \(behind == 1 ? "it" : "they") can no longer be sent."
        }
        let attempts = attemptStatus(history: history, now: now, elsewhere: elsewhere)
        let second = switch attempts.remaining {
        case 0:
            "Your next attempt opens on \(HumanDate.format(attempts.nextAttemptAt ?? now, in: zone ?? calendar.timeZone, roundingUp: true))."
        case 1:
            "You can submit 1 this week."
        default:
            "You can submit up to \(attempts.remaining) this week."
        }
        return "You have \(noun) to catch up on. \(second)"
    }
}
