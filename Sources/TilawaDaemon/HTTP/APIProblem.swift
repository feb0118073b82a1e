import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore

/// Every error the API answers with: RFC 9457 problem details with a stable `code` and the
/// data a client needs (`next_attempt_at`, `unlocks_at`, …).
///
/// Errors are mapped to problems in one place (`ProblemMiddleware` and the constructors
/// here), never ad hoc in handlers.
public struct APIProblem: HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    /// Stable, snake_case.
    public var code: String
    /// One line a person can act on.
    public var detail: String
    /// Extra members of the problem object.
    public var extras: [String: ProblemValue]
    /// Extra response headers (`Retry-After`, `WWW-Authenticate`).
    public var headers: HTTPFields

    /// Creates a problem.
    public init(_ status: HTTPResponse.Status, code: String, detail: String,
                extras: [String: ProblemValue] = [:], headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.detail = detail
        self.extras = extras
        self.headers = headers
    }

    /// The problem object as JSON, for the request at `instance`.
    public func body(instance: String) throws -> Data {
        var members = extras
        members["type"] = .string("https://tilawa.invalid/problems/\(code)")
        members["title"] = .string(status.reasonPhrase)
        members["status"] = .int(status.code)
        members["detail"] = .string(detail)
        members["code"] = .string(code)
        members["instance"] = .string(instance)
        return try APIJSON.encoder().encode(members)
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let data = try body(instance: request.uri.path)
        var headers = self.headers
        headers[.contentType] = "application/problem+json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension APIProblem {
    static func unauthorized(_ code: String, _ detail: String) -> APIProblem {
        APIProblem(.unauthorized, code: code, detail: detail, headers: [.wwwAuthenticate: "Bearer realm=\"tilawa\""])
    }

    static func forbidden(_ detail: String = "This token may not see or change this resource.") -> APIProblem {
        APIProblem(.forbidden, code: "forbidden", detail: detail)
    }

    static func notFound(_ what: String) -> APIProblem {
        APIProblem(.notFound, code: "not_found", detail: "No \(what) here.")
    }

    /// A student id the caller may not see, or that does not exist: the same answer for both.
    static let unknownStudent = APIProblem(.notFound, code: "unknown_student", detail: "No student with this id here.")

    /// A coach id the caller may not see, or that does not exist.
    static let unknownCoach = APIProblem(.notFound, code: "unknown_coach", detail: "No coach with this id here.")

    static func badRequest(_ code: String, _ detail: String) -> APIProblem {
        APIProblem(.badRequest, code: code, detail: detail)
    }

    static let storageFull = APIProblem(
        .init(code: 507, reasonPhrase: "Insufficient Storage"), code: "storage_full",
        detail: "The server has no room for recordings right now. Please try again later; nothing was counted.",
        headers: [.retryAfter: "300"])

    /// The store artifacts live in (an S3 `artifacts.url`) did not take or give a file: an
    /// upload recorded nothing (a row commits only after its files are stored), a playback can
    /// be asked again. The same answer for both.
    static let artifactStoreUnavailable = APIProblem(
        .serviceUnavailable, code: "artifact_store_unavailable",
        detail: "The recordings' store does not answer just now; nothing was counted. Please try again in a minute.",
        headers: [.retryAfter: "60"])

    static func payloadTooLarge(limit: Int) -> APIProblem {
        APIProblem(.contentTooLarge, code: "payload_too_large",
                   detail: "The recording is larger than \(limit / (1024 * 1024)) MB. Please record only this week's passage.",
                   extras: ["max_bytes": .int(limit)], headers: [.connection: "close"])
    }

    /// A JSON body larger than the route reads into memory.
    static func bodyTooLarge(limit: Int) -> APIProblem {
        APIProblem(.contentTooLarge, code: "payload_too_large", detail: "The request body is larger than \(limit / 1024) KiB.",
                   extras: ["max_bytes": .int(limit)], headers: [.connection: "close"])
    }

    /// The body ended before its declared end: the connection closed, stalled past
    /// `http.upload_timeout_seconds`, or broke its framing. The client rarely sees this answer.
    static let uploadIncomplete = APIProblem(
        .badRequest, code: "upload_incomplete",
        detail: "The recording did not arrive in full; nothing was counted. Please send it again.",
        headers: [.connection: "close"])

    /// The body arrived slower than `http.min_upload_bytes_per_second` and was cut; `kept` is
    /// the offset a resumable upload keeps (nil: a one-shot upload, which keeps nothing).
    static func uploadTooSlow(_ rate: MinimumBodyRate?, kept: Int64?) -> APIProblem {
        let pace = rate.map { " (under \($0.bytesPerSecond >= 1024 ? "\($0.bytesPerSecond / 1024) KiB" : "\($0.bytesPerSecond) bytes") a second)" } ?? ""
        let detail = kept.map { "The recording was arriving too slowly\(pace), so the connection was closed; the \($0) bytes received are kept. Resume when the network is better." }
            ?? "The recording was arriving too slowly\(pace), so the connection was closed; nothing was counted. Please send it again when the network is better."
        var headers: HTTPFields = [.connection: "close"]
        if let kept { headers[.uploadOffset] = "\(kept)" }
        return APIProblem(.requestTimeout, code: "upload_too_slow", detail: detail, headers: headers)
    }

    static func notAudio(_ detail: String) -> APIProblem {
        APIProblem(.unsupportedMediaType, code: "not_audio", detail: detail)
    }

    /// A recording refused for its audio: 422, or 415 when the content is not audio at all.
    static func audio(_ verdict: AudioVerdict, analysis: AudioAnalysis?) -> APIProblem {
        let primary = verdict.primaryRejection ?? .unreadable(detail: "")
        var extras: [String: ProblemValue] = ["reasons": .strings(verdict.rejections.map(\.code))]
        // Always present: null when the audio could not be decoded (`empty`, `unreadable`, …).
        extras["analysis"] = analysis.map(ProblemValue.analysis) ?? .null
        let status: HTTPResponse.Status = primary.code == "unsupported_format" ? .unsupportedMediaType : .unprocessableContent
        return APIProblem(status, code: primary.code, detail: primary.message, extras: extras)
    }

    /// A programme rule's refusal, with the data to show (DESIGN §4).
    static func rule(_ refusal: RuleRefusal, timeZone: TimeZone, now: Date) -> APIProblem {
        let detail = refusal.message(in: timeZone)
        switch refusal {
        case let .attemptLimit(next, used, limit):
            let wait = max(1, Int(next.timeIntervalSince(now).rounded(.up)))
            return APIProblem(.tooManyRequests, code: refusal.code, detail: detail,
                              extras: ["next_attempt_at": .date(next), "used": .int(used), "limit": .int(limit),
                                       "retry_after_seconds": .int(wait)],
                              headers: [.retryAfter: "\(wait)"])
        case let .weekLocked(week, unlocksAt):
            return APIProblem(.conflict, code: refusal.code, detail: detail,
                              extras: ["unlocks_at": .date(unlocksAt), "week": .int(week)])
        case let .eocNotEligible(have, need, opensAt):
            var extras: [String: ProblemValue] = ["weeks_submitted": .int(have), "weeks_required": .int(need)]
            if let opensAt { extras["opens_at"] = .date(opensAt) }
            return APIProblem(.conflict, code: refusal.code, detail: detail, extras: extras)
        case .eocUnderReview, .eocPassed, .notPlaced, .enrolmentPaused, .enrolmentLeft:
            return APIProblem(.conflict, code: refusal.code, detail: detail)
        case let .semesterClosed(closedAt):
            return APIProblem(.conflict, code: refusal.code, detail: detail, extras: ["closed_at": .date(closedAt)])
        case let .consentRequired(policyURL, policyVersion):
            var extras: [String: ProblemValue] = ["policy_url": .string(policyURL)]
            if let policyVersion { extras["policy_version"] = .string(policyVersion) }
            return APIProblem(.conflict, code: refusal.code, detail: detail, extras: extras)
        case let .erasurePending(requestedAt, dueAt):
            return APIProblem(.conflict, code: refusal.code, detail: detail, extras: ["requested_at": .date(requestedAt), "due_at": .date(dueAt)])
        case .unknownStudent:
            return APIProblem(.notFound, code: refusal.code, detail: detail)
        case .invalidWeek, .invalidIdentifier:
            return APIProblem(.badRequest, code: refusal.code, detail: detail)
        }
    }
}

extension HTTPField.Name {
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
    static let idempotentReplayed = HTTPField.Name("Idempotent-Replayed")!
    static let recordedAt = HTTPField.Name("Recorded-At")!
}
