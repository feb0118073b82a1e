import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore
import TilawaStore

/// `Idempotency-Key` on the back office's writes (extensions, attempt grants, enrolment
/// changes, moving a reply, cover, erasure, announcements): a retried request is applied once.
///
/// The key space is the operator's (`IdempotencyOwner.ops`). The key is claimed once the
/// body is read and checked: the request's method, path and body SHA-256 are its hash. The
/// same key and hash again is answered with the first answer, unchanged, with
/// `Idempotent-Replayed: true`; the same key with another request is 422
/// `idempotency_key_reused` (the IETF idempotency draft's status for a key reused with
/// another payload; the upload routes' 409 predates this and stays, for the phones that
/// retry on it); while the first is running, 409 `idempotency_key_in_use`.
///
/// Only a success is remembered. A refusal (404, 409, 422) wrote nothing, so its retry is
/// decided anew against the state as it is then; a failure on our side releases the key.
/// The answer is stored right after the action's own transaction: a process killed between
/// the two leaves the key in flight until the daemon's restart releases it, and that retry
/// would apply the action again — a window of one write.
struct OperatorIdempotency: Sendable {
    let api: APIContext

    /// An answer to store and replay: a status and a JSON body.
    struct Answer: Sendable {
        let status: HTTPResponse.Status
        let body: Data
        var headers: HTTPFields = [:]

        var response: Response {
            var headers = headers
            headers[.contentType] = "application/json"
            return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
    }

    /// A JSON answer.
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Answer {
        Answer(status: status, body: try APIJSON.encoder().encode(value), headers: headers)
    }

    /// Runs `action` once per key: without a key, simply runs it. `replayHeaders` rebuilds the
    /// headers a replayed answer carries besides its body (a `Location`).
    func run(_ request: Request, operator subject: String, body: Data,
             replayHeaders: @Sendable (Data) -> HTTPFields = { _ in [:] },
             _ action: () async throws -> Answer) async throws -> Response {
        guard let key = try SubmissionRoutes.idempotencyKey(request) else { return try await action().response }
        let owner = IdempotencyOwner.ops(subject)
        let hash = "\(request.method.rawValue) \(request.uri.path) " + SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined()
        let database = api.runtime.database
        let retention = api.runtime.configuration.idempotencyRetention
        switch try await database.claimIdempotencyKey(owner: owner, key: key, requestHash: hash, now: api.now, retention: retention,
                                                      inFlightTimeout: Self.inFlightTimeout) {
        case .inFlight:
            throw SubmissionRoutes.problem(.keyInUse)
        case let .answered(stored, status, answer):
            guard stored == hash else {
                throw APIProblem(.unprocessableContent, code: "idempotency_key_reused",
                                 detail: "This Idempotency-Key was used for a different request; use a new key for a new request.")
            }
            var headers = replayHeaders(answer)
            headers[.idempotentReplayed] = "true"
            return Answer(status: HTTPResponse.Status(code: status), body: answer, headers: headers).response
        case .unused:
            break
        }
        let answer: Answer
        do {
            answer = try await action()
        } catch {
            try? database.abandonIdempotentRequest(owner: owner, key: key)
            throw error
        }
        try await database.finishIdempotentRequest(owner: owner, key: key, status: Int(answer.status.code), body: answer.body)
        return answer.response
    }

    /// How long a claim stays in flight before a retry may run anew: a back-office action is
    /// one transaction, so ten minutes means its process died (a restart releases it sooner).
    static let inFlightTimeout: TimeInterval = 600
}
