import Foundation

/// One value a notification's sentence is made of: text as written (a title, a name, a
/// coach's note), a number, or an instant — written in RFC 3339 so that an app can say it in
/// the reader's language and zone (the event's `params.time_zone` says which zone the English
/// sentence used).
public enum MessageValue: Sendable, Hashable, Codable {
    case text(String)
    case int(Int)
    case number(Double)
    case instant(Date)

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case let .text(value): try container.encode(value)
        case let .int(value): try container.encode(value)
        case let .number(value): try container.encode(value)
        case let .instant(value): try container.encode(value.formatted(.iso8601))
        }
    }

    /// Reads what `encode` wrote; an instant comes back as its RFC 3339 text.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else {
            self = .text(try container.decode(String.self))
        }
    }
}

/// A notification's sentence as data (DESIGN §14): a stable `key`, the `params` it is made
/// of, and the English `text` rendered from them by `EnglishMessages` — so that the English
/// `message` every event carries and what an app renders from `message_key` and `params` in
/// another language are made of the same parts. The keys and their parameters are listed in
/// the OpenAPI document (`MessageKey`).
public struct EventMessage: Sendable, Hashable {
    public let key: String
    public let params: [String: MessageValue]

    /// A message of `key` made of `params` (nil values are left out).
    public init(_ key: String, _ params: [String: MessageValue?]) {
        self.key = key
        self.params = params.compactMapValues { $0 }
    }

    /// The English sentence, the event's `message`.
    public var text: String { EnglishMessages.render(key: key, params: params) }
}

extension MessageValue {
    /// `.text` of `value`, or nil for nil.
    public static func text(_ value: String?) -> MessageValue? { value.map(MessageValue.text) }
    /// `.int` of `value`, or nil for nil.
    public static func int(_ value: Int?) -> MessageValue? { value.map(MessageValue.int) }
    /// `.instant` of `value`, or nil for nil.
    public static func instant(_ value: Date?) -> MessageValue? { value.map(MessageValue.instant) }
    /// The zone instants are written in, by its IANA name.
    public static func zone(_ zone: TimeZone) -> MessageValue { .text(zone.identifier) }
}

/// Renders every message key in English: the one place Tilawa's notification sentences are
/// written. Unknown keys and missing parameters render as empty parts, never a crash (the
/// render of stored events must not fail on what an older version wrote).
public enum EnglishMessages {
    /// Every key `render` knows, for the documentation test.
    public static let keys: [String] = [
        "submission_received.week", "submission_received.week_late", "submission_received.eoc",
        "submission_received.assessment", "submission_received.assessment_placed", "submission_failed", "submission_refused",
        "submission_withdrawn", "submission_withdrawn.coach", "placement_ready", "enrolled", "week_unlocked",
        "deadline_reminder", "eoc_available", "eoc_results_ready.pass", "eoc_results_ready.retake", "feedback_ready",
        "annotation_added", "question_asked", "question_answered", "announcement", "submission_ready_for_review",
        "feedback_overdue", "student_falling_behind.new", "student_falling_behind.streak", "coach_digest", "storage_low",
        "deadline_extended", "attempts_granted", "feedback_moved", "enrolment_changed.coach", "enrolment_changed.level",
        "enrolment_changed.paused", "enrolment_changed.resumed", "enrolment_changed.left", "cover_started",
        "desk_link_requested", "erasure_requested",
    ]

    public static func render(key: String, params: [String: MessageValue]) -> String {
        let p = Params(params)
        switch key {
        case "submission_received.week":
            return "We received your recording for \(p.what). \(p.coach) will reply within \(StudentMessages.hours(p.number("feedback_due_hours")))."
        case "submission_received.week_late":
            return "We received your recording for \(p.what). It arrived after the deadline and is marked late; \(p.coach) will still reply."
        case "submission_received.eoc":
            return "We received your end-of-course assessment. Results take up to \(StudentMessages.days(p.int("business_days"))); expect them by \(p.day("expected_by"))."
        case "submission_received.assessment":
            return "We received your placement assessment. You'll be placed in a level within \(StudentMessages.hours(p.number("placement_due_hours")))."
        case "submission_received.assessment_placed":
            return "We received your placement assessment; a coach will listen to it."
        case "submission_failed":
            return "We couldn't process your recording for \(p.what(capital: true)) — please record it again; it did not use an attempt."
        case "submission_refused":
            return "Your recording for \(p.what) was not accepted: \(p.text("detail"))"
        case "submission_withdrawn":
            return "You withdrew your recording for \(p.what); the attempt it used is yours again."
        case "submission_withdrawn.coach":
            return "\(p.text("student_name")) withdrew their recording for \(p.what); it is no longer in your queue."
        case "placement_ready":
            return "You've been placed in \(p.text("level_name")); your coach is \(p.text("coach_name"))."
        case "enrolled":
            return "Welcome to \(p.text("level_name")) for \(p.text("semester_name")): your coach is \(p.text("coach_name")); week 1 unlocks \(p.instant("week_one_unlocks_at"))."
        case "week_unlocked":
            let passage = p.optionalText("passage").map { " (\($0))" } ?? ""
            return "Week \(p.int("week")) is here! Your new lesson is ready: \(p.text("title"))\(passage), due \(p.instant("due_at"))."
        case "deadline_reminder":
            let days = p.int("days_left")
            let left = days <= 0 ? "today" : days == 1 ? "tomorrow" : "in \(days) days"
            return "Week \(p.int("week")) (\(p.text("title"))) is due \(left), \(p.instant("due_at")), and nothing is submitted for it yet."
        case "eoc_available":
            return "Your end-of-course assessment for \(p.text("level_name")) is open: record it before \(p.instant("closes_at"))."
        case "eoc_results_ready.pass":
            return "Your EOC results are in: congratulations! You've graduated \(p.text("level_name"))."
        case "eoc_results_ready.retake":
            return "Your EOC results are in: your coach has asked for a retake of the \(p.text("level_name")) assessment; you may record it once more."
        case "feedback_ready":
            return "\(p.coach) replied to your recording for \(p.what)."
        case "annotation_added":
            let place = p.optionalInt("surah").map { "ayah \($0):\(p.int("ayah"))" } ?? "at \(clock(p.number("at_seconds")))"
            return "\(p.coach) marked \(place) in your recording for \(p.what) (\(p.text("kind").replacingOccurrences(of: "_", with: " "))): \(p.excerpt)"
        case "question_asked":
            return "\(p.text("student_name")) asked about your reply to their recording for \(p.what): \(p.excerpt)"
        case "question_answered":
            return "\(p.coach) answered your question about \(p.what): \(p.excerpt)"
        case "announcement":
            return "\(p.text("title")): \(p.text("body"))"
        case "submission_ready_for_review":
            return "\(p.text("student_name"))'s recording for \(p.what) is ready for your review; please reply by \(p.instant("due_at"))."
        case "feedback_overdue":
            return "\(p.text("student_name"))'s recording for \(p.what) is still waiting for \(p.optionalText("coach_name") ?? "a coach")'s reply; it was due \(p.instant("due_at"))."
        case "student_falling_behind.new":
            return "\(p.text("student_name")) has nothing in after \(p.int("missed")) weeks — a call from you now is what brings new students back."
        case "student_falling_behind.streak":
            return "\(p.text("student_name")) has missed \(p.int("missed")) deadlines in a row (weeks \(p.int("from_week"))–\(p.int("to_week"))) — a call from you may bring them back."
        case "coach_digest":
            return StaffMessages.coachDigestText(awaiting: p.int("awaiting"), overdue: p.int("overdue"), openQuestions: p.int("open_questions"),
                                                 oldestDue: p.optionalInstant("oldest_due_at"))
        case "storage_low":
            let free = Int64(p.int("free_bytes")), total = Int64(p.int("total_bytes"))
            let percent = Double(free) / Double(max(1, total)) * 100
            return "The state directory's disk has \(Quantity.bytes(free)) free (\(Quantity.percent(percent))); "
                + "uploads are refused below \(Quantity.bytes(Int64(p.int("minimum_free_bytes"))))."
        case "deadline_extended":
            let what = p.optionalInt("week") == nil ? "the \(p.what)" : p.what
            return "Your deadline for \(what) has moved: you can now record it until \(p.instant("due_at"))."
        case "attempts_granted":
            let count = p.int("count")
            let recordings = count == 1 ? "1 extra recording" : "\(count) extra recordings"
            return "You have \(recordings) beyond your weekly limit, to use once your attempts are used, until \(p.instant("expires_at"))."
        case "feedback_moved":
            return "A reply filed under your recording for \(p.what) was meant for another student and has been moved; \(p.optionalText("coach_name") ?? "your coach") will reply to your recording."
        case "enrolment_changed.coach":
            return "Your coach is now \(p.text("coach_name")); your recordings and replies so far stay as they are."
        case "enrolment_changed.level":
            return "You are now in \(p.text("level_name")); the weeks you have recorded still count."
        case "enrolment_changed.paused":
            return "Your enrolment is paused: nothing is due and no reminders come until it resumes."
        case "enrolment_changed.resumed":
            return "Welcome back: your enrolment is active again."
        case "enrolment_changed.left":
            return "Your enrolment this semester has ended; your recordings and replies stay in your history."
        case "cover_started":
            return "You are covering \(p.text("covered_coach_name"))'s students until \(p.instant("until")): their recordings are in your queue."
        case "desk_link_requested":
            return "You asked for a new link to the coach's desk: it signs you in once, until \(p.instant("expires_at"))."
        case "erasure_requested":
            return "\(p.text("student_name")) asked for their recordings and personal data to be erased; unless they cancel, it is carried out on \(p.instant("due_at"))."
        default:
            return ""
        }
    }

    /// `m:ss` of a position in a recording.
    static func clock(_ seconds: Double) -> String {
        let whole = max(0, Int(seconds.rounded(.down)))
        return "\(whole / 60):\(whole % 60 < 10 ? "0" : "")\(whole % 60)"
    }

    /// Typed reads of the parameters, each with a harmless default.
    private struct Params {
        let values: [String: MessageValue]
        init(_ values: [String: MessageValue]) { self.values = values }

        var zone: TimeZone { optionalText("time_zone").flatMap(TimeZone.init(identifier:)) ?? .gmt }

        func optionalText(_ name: String) -> String? {
            if case let .text(value) = values[name] { return value }
            return nil
        }
        func text(_ name: String) -> String { optionalText(name) ?? "" }
        func optionalInt(_ name: String) -> Int? {
            switch values[name] {
            case let .int(value): value
            case let .number(value): Int(exactly: value)
            default: nil
            }
        }
        func int(_ name: String) -> Int { optionalInt(name) ?? 0 }
        func number(_ name: String) -> Double {
            switch values[name] {
            case let .int(value): Double(value)
            case let .number(value): value
            default: 0
            }
        }
        func optionalInstant(_ name: String) -> String? {
            switch values[name] {
            case let .instant(value): HumanDate.format(value, in: zone)
            case let .text(value): (try? Date(value, strategy: .iso8601)).map { HumanDate.format($0, in: zone) }
            default: nil
            }
        }
        func instant(_ name: String) -> String { optionalInstant(name) ?? "" }
        func day(_ name: String) -> String {
            switch values[name] {
            case let .instant(value): HumanDate.day(value, in: zone)
            case let .text(value): (try? Date(value, strategy: .iso8601)).map { HumanDate.day($0, in: zone) } ?? ""
            default: ""
            }
        }
        /// The coach by name, or "Your coach".
        var coach: String { optionalText("coach_name") ?? "Your coach" }
        /// "week 8 (Al-Fil)", "week 8" without a title, or the title in lower case for the
        /// assessments ("the end-of-course assessment" is written "End-of-course assessment").
        var what: String { what(capital: false) }
        func what(capital: Bool) -> String {
            guard let week = optionalInt("week") else { return text("title").lowercased() }
            let word = capital ? "Week" : "week"
            return optionalText("title").map { "\(word) \(week) (\($0))" } ?? "\(word) \(week)"
        }
        /// A comment's text in quotes and, for a voice clip, its length.
        var excerpt: String {
            let seconds: Double? = values["clip_seconds"] == nil ? nil : number("clip_seconds")
            return StaffMessages.commentExcerpt(text: text("text"), clipSeconds: seconds)
        }
    }
}
