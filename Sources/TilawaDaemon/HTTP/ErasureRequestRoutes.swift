import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore
import TilawaStore

/// Erasure asked by the student (DESIGN §16): `POST`, `GET` and `DELETE
/// /v1/students/{id}/erasure-request`, by the student themself or operations (a coach is 403;
/// another student's id, or an unknown or erased one, 404 `unknown_student`).
///
/// A request falls due `privacy.erasure_grace_days` later; the daemon then erases the student
/// (`ErasureRequestService`), unless it was cancelled. While it is pending every upload is 409
/// `erasure_pending`; the student can still export their archive.
struct ErasureRequestRoutes: Sendable {
    let api: APIContext

    func register(on group: RouterGroup<TilawaRequestContext>) {
        group.post("students/:id/erasure-request", use: ask)
        group.get("students/:id/erasure-request", use: show)
        group.delete("students/:id/erasure-request", use: cancel)
    }

    private var terms: ConsentTerms { api.runtime.policy.consent }

    /// `POST …/erasure-request` (no body): 201 `{requested_at, due_at, cancel}`, with
    /// `erasure_requested` to operations' webhook and an audit row; 200 with the pending one
    /// when a request is already pending (nothing written).
    @Sendable func ask(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let (principal, studentId) = try await api.ownStudent(request, context: context)
        let outcome = try await api.runtime.database.requestErasure(
            studentId: studentId, grace: api.runtime.configuration.privacy.erasureGrace, by: APIContext.actor(of: principal),
            reason: APIContext.auditReason(of: principal), now: api.now)
        switch outcome {
        case let .failure(refusal):
            throw APIProblem.privacy(refusal, terms: terms)
        case let .success(asked):
            if asked.created {
                api.wakeup.signal()
                let names = api.runtime.pseudonyms
                context.logger.notice("erasure requested", metadata: [
                    "student": "\(names.student(studentId))", "by": "\(names.principal(principal))",
                    "due_at": "\(asked.request.dueAt.formatted(.iso8601))",
                ])
            }
            return try api.json(ErasureRequestResource(asked.request), status: asked.created ? .created : .ok)
        }
    }

    /// `GET …/erasure-request`: 200 the pending request; 404 `no_erasure_request`.
    @Sendable func show(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let (_, studentId) = try await api.ownStudent(request, context: context)
        switch try await api.runtime.database.pendingErasureRequest(studentId: studentId) {
        case let .failure(refusal):
            throw APIProblem.privacy(refusal, terms: terms)
        case let .success(found):
            guard let pending = found else { throw APIProblem.privacy(.noErasureRequest(studentId), terms: terms) }
            return try api.json(ErasureRequestResource(pending))
        }
    }

    /// `DELETE …/erasure-request`: cancels the pending request (kept as history, audited
    /// `erasure_request_cancelled`); 200 with it; 404 `no_erasure_request`.
    @Sendable func cancel(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let (principal, studentId) = try await api.ownStudent(request, context: context)
        switch try await api.runtime.database.cancelErasureRequest(studentId: studentId, by: APIContext.actor(of: principal),
                                                                     reason: APIContext.auditReason(of: principal), now: api.now) {
        case let .failure(refusal):
            throw APIProblem.privacy(refusal, terms: terms)
        case let .success(cancelled):
            let names = api.runtime.pseudonyms
            context.logger.notice("erasure request cancelled", metadata: ["student": "\(names.student(studentId))", "by": "\(names.principal(principal))"])
            return try api.json(ErasureRequestResource(cancelled))
        }
    }
}
