import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore
import TilawaStore

/// Consent to the recording policy (DESIGN §16): `GET`, `PUT` and `DELETE
/// /v1/students/{id}/consent`, by the student themself or operations (a paper form). A coach
/// is 403; another student's id, or an unknown or erased one, 404 `unknown_student`.
///
/// With `privacy.require_consent`, every upload of a student with no consent that counts is
/// 409 `consent_required` (decided where the admission decides, `SubmissionRules`).
struct ConsentRoutes: Sendable {
    let api: APIContext

    func register(on group: RouterGroup<TilawaRequestContext>) {
        group.get("students/:id/consent", use: show)
        group.put("students/:id/consent", use: give)
        group.delete("students/:id/consent", use: withdraw)
    }

    private var terms: ConsentTerms { api.runtime.policy.consent }

    /// `GET …/consent`: 200 the current consent with the terms; 404 `no_consent` (with
    /// `required`, `policy_url`, `policy_version`) when there is none.
    @Sendable func show(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let (_, studentId) = try await api.ownStudent(request, context: context)
        switch try await api.runtime.database.consents(studentId: studentId) {
        case let .failure(refusal):
            throw APIProblem.privacy(refusal, terms: terms)
        case let .success(consents):
            guard let current = consents.last(where: \.isCurrent) else { throw APIProblem.privacy(.noConsent(studentId), terms: terms) }
            return try api.json(ConsentResource(current, terms: terms))
        }
    }

    /// `PUT …/consent` (`ConsentBody`): 201 a new consent (replacing another current one), 200
    /// the same consent again (nothing written, no second audit row); 422 `guardian_required`
    /// for a minor's own consent or a guardian's without a name, `policy_version_mismatch` for
    /// another version than `privacy.policy_version`. The instant is the programme's clock.
    @Sendable func give(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let (principal, studentId) = try await api.ownStudent(request, context: context)
        let body = try await ConsentBody.read(request, context: context)
        let outcome = try await api.runtime.database.recordConsent(
            studentId: studentId, version: body.version, givenBy: body.givenBy, guardianName: body.guardianName, terms: terms,
            timeZone: api.runtime.configuration.program.timeZone, by: APIContext.actor(of: principal),
            reason: APIContext.auditReason(of: principal), now: api.now)
        switch outcome {
        case let .failure(refusal):
            throw APIProblem.privacy(refusal, terms: terms)
        case let .success(recorded):
            if recorded.created {
                let names = api.runtime.pseudonyms
                context.logger.info("consent given", metadata: [
                    "student": "\(names.student(studentId))", "by": "\(names.principal(principal))", "given_by": "\(body.givenBy.rawValue)",
                ])
            }
            return try api.json(ConsentResource(recorded.consent, terms: terms), status: recorded.created ? .created : .ok)
        }
    }

    /// `DELETE …/consent`: withdraws the current consent (kept as history); 200 with it and
    /// `erasure_request`, the erasure the student may ask for next; 404 `no_consent`.
    @Sendable func withdraw(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let (principal, studentId) = try await api.ownStudent(request, context: context)
        switch try await api.runtime.database.withdrawConsent(studentId: studentId, by: APIContext.actor(of: principal),
                                                                reason: APIContext.auditReason(of: principal), now: api.now) {
        case let .failure(refusal):
            throw APIProblem.privacy(refusal, terms: terms)
        case let .success(consent):
            let names = api.runtime.pseudonyms
            context.logger.notice("consent withdrawn", metadata: ["student": "\(names.student(studentId))", "by": "\(names.principal(principal))"])
            return try api.json(ConsentResource(consent, terms: terms, offeringErasure: true))
        }
    }
}
