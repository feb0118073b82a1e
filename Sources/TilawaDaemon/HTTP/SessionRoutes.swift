import Foundation
import HTTPTypes
import Hummingbird
import TilawaStore

/// Sign-out everywhere (DESIGN §16): `POST /v1/students/{id}/sessions/revoke` and
/// `POST /v1/coaches/{id}/sessions/revoke`.
///
/// The student or coach themself (no body needed), or operations with `{"reason": …}` (422
/// `reason_required` without one; audited as `sessions_revoked`). Anyone else is 403 before
/// any lookup, whatever the id: a role's own id is the only one it may sign out, so the
/// answer says nothing about who exists. One transaction: every token issued in or before
/// this second is refused from now on (`revoked_token`, local and provider tokens alike, by
/// `iat`), the devices registered for pushes are removed, and a coach's desk sessions end
/// (their unused login links with them). A retry only moves the instant on.
struct SessionRoutes: Sendable {
    let api: APIContext

    func register(on group: RouterGroup<TilawaRequestContext>) {
        group.post("students/:id/sessions/revoke", use: { try await revoke(.student, $0, $1) })
        group.post("coaches/:id/sessions/revoke", use: { try await revoke(.coach, $0, $1) })
    }

    /// 200 `{revoked_at, devices_removed, desk_sessions_ended}`; 404 `unknown_student` (also
    /// for an erased one) or `unknown_coach`.
    @Sendable func revoke(_ kind: Device.Owner, _ request: Request, _ context: TilawaRequestContext) async throws -> Response {
        let principal: Principal
        let id: String
        do {
            principal = try context.requirePrincipal()
            id = try api.identifier("id", in: context)
            switch (principal.role, kind) {
            case (.ops, _):
                break
            case (.student, .student), (.coach, .coach):
                guard principal.subject == id else {
                    throw APIProblem.forbidden("Only the person themself or operations may sign this account out everywhere.")
                }
            case (.student, .coach), (.coach, .student):
                throw APIProblem.forbidden()
            }
        } catch {
            context.refuseBody(of: request)
            throw error
        }
        // The person themself needs no reason; an operator's act is audited with theirs.
        var actor: String?
        var reason: String?
        if principal.role == .ops {
            reason = try await Self.reason(request, context: context)
            actor = principal.subject
        }
        switch try await api.runtime.database.revokeSessions(of: kind, id: id, by: actor, reason: reason, now: api.now) {
        case .failure:
            throw kind == .student ? APIProblem.unknownStudent : APIProblem.unknownCoach
        case let .success(revocation):
            context.logger.notice("signed out everywhere", metadata: [
                "owner": "\(kind.rawValue):\(api.runtime.pseudonyms.owner(kind, id))", "by": "\(api.runtime.pseudonyms.principal(principal))",
                "devices": "\(revocation.devicesRemoved)",
                "desk_sessions": "\(revocation.deskSessionsEnded)",
            ])
            return try api.json(SessionRevocationResource(revocation))
        }
    }

    /// An operator's `{"reason": …}`: 422 `reason_required` for none (no body at all, too), 415
    /// for a body that is not JSON, 400 `invalid_body` for other members.
    static func reason(_ request: Request, context: TilawaRequestContext) async throws -> String {
        let contentType = request.headers[.contentType]?.lowercased()
        if let contentType, !contentType.hasPrefix("application/json") {
            context.refuseBody(of: request)
            throw APIProblem(.unsupportedMediaType, code: "unsupported_media_type", detail: "Send application/json: \(RevocationForm.shape).")
        }
        let body = try await request.decodeJSON(as: BackOfficeRequestBody<RevocationForm>.self, context: context, limit: 16_384,
                                                shape: "The body must be \(RevocationForm.shape).",
                                                whenEmpty: BackOfficeRequestBody(BackOfficeBody(object: [:])))
        return try body.members.reason()
    }
}

/// What `POST …/sessions/revoke` did.
struct SessionRevocationResource: Encodable, Sendable {
    let revokedAt: Date
    let devicesRemoved: Int
    let deskSessionsEnded: Int

    init(_ revocation: SessionRevocation) {
        revokedAt = revocation.revokedAt
        devicesRemoved = revocation.devicesRemoved
        deskSessionsEnded = revocation.deskSessionsEnded
    }
}
