import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization
import TilawaTestSupport

/// One request of the chaos soak: a student's recording, a coach's reply or a student playing
/// an earlier recording, with the `Idempotency-Key` a phone keeps for its retries.
struct ChaosRequest: Sendable {
    enum Kind: String, Sendable {
        /// `POST /v1/students/{sender}/weeks/{target}/submissions`.
        case upload
        /// `POST /v1/submissions/{target}/feedback`, by the coach `sender`.
        case reply
        /// `GET /v1/submissions/{target}/audio`, by the student `sender`.
        case playback
    }

    var kind: Kind
    /// The student (an upload, a playback) or the coach (a reply).
    var sender: String
    /// The slot (an upload) or the submission (a reply, a playback).
    var target: String
    var key: String
    var token: String

    var path: String {
        switch kind {
        case .upload: "/v1/students/\(sender)/weeks/\(target)/submissions"
        case .reply: "/v1/submissions/\(target)/feedback"
        case .playback: "/v1/submissions/\(target)/audio"
        }
    }

    /// Whether the attempt rule counts it: a week's recording (a placement assessment uses no attempt).
    var isCounted: Bool { kind == .upload && target != "assessment" }
}

/// What one request was answered, or that it was not (`status` 0: the connection failed).
struct ChaosAnswer: Sendable {
    var request: ChaosRequest
    var status: Int
    var code: String? = nil
    var retryAfter: String? = nil
    /// Still an answer to wait and retry on when the hang limit ended the retries: never final.
    var unresolved = false
    /// The recording's or the reply's id, of a 201.
    var id: String? = nil
    /// Why there was no answer.
    var failure: String? = nil
    var phase = ""
    var node = ""
    /// Whether the phase's fault was on when it was asked or when it was answered.
    var duringFault = false

    /// What a phone can act on: success; the attempt rule's 429 (with its `Retry-After`); a
    /// wait that says how long — 503, 507, or 409 for a key whose first request is still running
    /// or was released once the database came back — and ended before the hang limit. Never a
    /// 500, a dropped connection, a 401 that would sign the student out.
    var isAllowed: Bool {
        !unresolved && ((200..<300).contains(status) || (status == 429 && code == "attempt_limit" && retryAfter != nil)
            || ((status == 503 || status == 507) && retryAfter != nil)
            || (status == 409 && code == "idempotency_key_in_use" && retryAfter != nil))
    }

    /// `503 artifact_store_unavailable (Retry-After 60)`, `0 (no answer)`.
    var summary: String {
        status == 0 ? "0 (no answer)" : "\(status)" + (code.map { " " + $0 } ?? "") + (retryAfter.map { status == 429 ? " (with Retry-After)" : " (Retry-After \($0))" } ?? "")
            + (unresolved ? ", still so at the hang limit" : "")
    }
}

/// Everything the chaos soak's clients were answered, by phase, and whether a fault is on.
final class ChaosLog: Sendable {
    private struct State {
        var phase = "setup"
        var fault = false
        var answers: [ChaosAnswer] = []
    }

    private let state = Mutex(State())

    /// Starts a phase (its fault off).
    func begin(phase: String) { state.withLock { $0.phase = phase; $0.fault = false } }
    func setFault(_ on: Bool) { state.withLock { $0.fault = on } }
    var phase: String { state.withLock { $0.phase } }
    var faultIsOn: Bool { state.withLock { $0.fault } }
    func record(_ answer: ChaosAnswer) { state.withLock { $0.answers.append(answer) } }
    var answers: [ChaosAnswer] { state.withLock { $0.answers } }

    /// The 201s of `kind` so far, every phase.
    func accepted(_ kind: ChaosRequest.Kind) -> [ChaosAnswer] {
        answers.filter { $0.request.kind == kind && $0.status == 201 && $0.id != nil }
    }

    /// How many uploads `node` (any node when nil) answered 201 in `phase`.
    func acceptedUploads(in phase: String, by node: String? = nil) -> Int {
        answers.count { $0.phase == phase && $0.request.kind == .upload && $0.status == 201 && (node == nil || $0.node == node) }
    }

    /// The answers given while `phase`'s fault was on, counted by `summary`: `503 … ×12, 201 ×1`.
    func faultSummary(in phase: String, kind: ChaosRequest.Kind) -> String {
        let counts = answers.filter { $0.phase == phase && $0.duringFault && $0.request.kind == kind }
            .reduce(into: [String: Int]()) { $0[$1.summary, default: 0] += 1 }
        return counts.isEmpty ? "none" : counts.sorted { $0.value > $1.value }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
    }
}

/// Sends the chaos soak's requests through an HTTP client of the test's own without a read
/// timeout (a node stopped for 40 s answers after it resumes; the hang limit is the only bound),
/// and logs every answer.
struct ChaosSender: Sendable {
    let http: HTTPClient
    let log: ChaosLog
    let audio: Data
    /// The longest `Retry-After` honoured before a retry: a phone waits all of it, but a soak's
    /// phase is shorter than a full disk's 300 s.
    let patience: Double

    /// Sends `request` to `node` until its answer is final, as a phone does: again with the same
    /// key after a 503 or 507 (once its `Retry-After` has passed, `patience` at most) and after a
    /// failed connection or another 5xx (a second later), while the hang limit lasts; with
    /// `retrying` false, once. Every answer is logged; returns the last.
    @discardableResult
    func send(_ request: ChaosRequest, to node: SoakNode, retrying: Bool = true) async -> ChaosAnswer {
        let deadline = ContinuousClock.now + TestTime.hangLimit
        while true {
            let phase = log.phase, faultBefore = log.faultIsOn
            var answer = await once(request, port: node.port)
            answer.phase = phase
            answer.node = node.name
            answer.duringFault = faultBefore || log.faultIsOn
            log.record(answer)
            guard retrying, !Task.isCancelled, let wait = Self.retryWait(answer, patience: patience) else {
                return answer
            }
            guard ContinuousClock.now < deadline else {
                answer.unresolved = true
                log.record(answer)
                return answer
            }
            try? await Task.sleep(for: .seconds(wait))
        }
    }

    /// How long a phone waits before sending `answer`'s request again; nil when it does not.
    static func retryWait(_ answer: ChaosAnswer, patience: Double) -> Double? {
        switch answer.status {
        case 503, 507: return min(patience, max(0.5, answer.retryAfter.flatMap { Double($0) } ?? 1))
        // The first request with the key is still running, or failed while the database was
        // away and its key is released once the database is back: come back after a while.
        case 409 where answer.code == "idempotency_key_in_use" && answer.retryAfter != nil:
            return min(patience, max(0.5, answer.retryAfter.flatMap { Double($0) } ?? 1))
        case 0, 500...599: return 1
        default: return nil
        }
    }

    private func once(_ request: ChaosRequest, port: Int) async -> ChaosAnswer {
        var http = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(request.path)")
        http.headers.add(name: "Authorization", value: "Bearer \(request.token)")
        if request.kind != .playback {
            http.method = .POST
            http.headers.add(name: "Content-Type", value: "audio/ogg")
            http.headers.add(name: "Idempotency-Key", value: request.key)
            http.body = .bytes(ByteBuffer(bytes: audio))
        }
        var answer = ChaosAnswer(request: request, status: 0)
        do {
            let response = try await self.http.execute(http, timeout: LiveClient.hangLimit)
            let body = try await response.body.collect(upTo: 64 << 20)
            answer.status = Int(response.status.code)
            answer.retryAfter = response.headers.first(name: "Retry-After")
            if request.kind != .playback || answer.status >= 400,
               let json = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any] {
                answer.code = json["code"] as? String
                answer.id = answer.status == 201 ? json["id"] as? String : nil
            }
        } catch {
            answer.failure = "\(error)"
        }
        return answer
    }
}

/// Whether the phones go on sending: turned off once, read by every lane.
final class RunningFlag: Sendable {
    private let on = Atomic<Bool>(true)

    var isOn: Bool { on.load(ordering: .relaxed) }
    func turnOff() { on.store(false, ordering: .relaxed) }
}

/// The phones of the chaos soak: lanes of students, each lane sending one recording at a time
/// (no student ever sends two at once: the per-student upload slots' 429 is no fault's), most of
/// them placement assessments (admitted without limit) and one in four a week's (the attempt
/// rule's: two in 7 days, then 429 `attempt_limit`).
struct ChaosPhones: Sendable {
    let sender: ChaosSender
    let lanes: [[String]]
    let tokens: [String: String]
    let seed: UInt64

    /// Sends recordings until `running` is turned off, each lane at least one; the n-th of a
    /// lane to the node `route(n + lane)` picks.
    func upload(while running: RunningFlag, route: @escaping @Sendable (Int) -> SoakNode) async {
        await withDiscardingTaskGroup { group in
            for (lane, students) in lanes.enumerated() {
                group.addTask {
                    var random = SeededGenerator(seed: seed &+ UInt64(lane) &* 7_919)
                    var count = 0
                    repeat {
                        let student = students[count % students.count]
                        let slot = Int.random(in: 0..<4, using: &random) == 0 ? ["10", "11", "12"].randomElement(using: &random)! : "assessment"
                        let request = ChaosRequest(kind: .upload, sender: student, target: slot, key: "lane\(lane)-\(UUID().uuidString)",
                                                   token: tokens[student] ?? "")
                        await sender.send(request, to: route(count + lane))
                        count += 1
                    } while running.isOn && !Task.isCancelled
                }
            }
        }
    }
}
