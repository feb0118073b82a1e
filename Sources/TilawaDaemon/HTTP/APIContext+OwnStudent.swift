import Foundation
import Hummingbird

extension APIContext {
    /// The caller and the student the path's `id` names, for a route of the student themself or
    /// operations (consent, erasure request): a coach is 403, another student's id — or an
    /// unknown or erased one — 404 `unknown_student`, as on every per-student route. A body
    /// sent by a caller who may not act is refused unread.
    func ownStudent(_ request: Request, context: TilawaRequestContext) async throws -> (principal: Principal, studentId: String) {
        do {
            let principal = try context.requirePrincipal()
            let studentId = try identifier("id", in: context)
            try await access.requireStudent(studentId, for: principal, roles: [.student, .ops])
            return (principal, studentId)
        } catch {
            context.refuseBody(of: request)
            throw error
        }
    }

    /// Who acted, as the audit log names them: `student:S1001`, or the operator's name.
    static func actor(of principal: Principal) -> String {
        principal.role == .ops ? principal.subject : principal.description
    }

    /// The audit log's reason for an act through the API (a student gives none).
    static func auditReason(of principal: Principal) -> String {
        principal.role == .ops ? "by an operator through the API" : "by the student in the app"
    }
}
