import Foundation
import HTTPTypes
import Hummingbird

/// Requires a valid bearer token on every `/v1` route and records who is asking.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = TilawaRequestContext
    let authority: TokenAuthority
    let clock: @Sendable () -> Date

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        do {
            let token = try bearerToken(fromAuthorizationHeader: request.headers[.authorization])
            let principal = try await authority.verify(token, now: clock())
            context.principal = principal
            context.record.note(principal)
        } catch {
            throw APIProblem(.unauthorized, code: error.code, detail: error.description, headers: [.wwwAuthenticate: error.challenge])
        }
        return try await next(request, context)
    }
}

/// Who may see what (DESIGN §4): a student their own data, a coach their assigned
/// students', ops everything.
struct AccessPolicy: Sendable {
    let runtime: TilawaRuntime

    /// Allows `principal` to read the data of `studentId`, else 403.
    func requireRead(student studentId: String, by principal: Principal) throws {
        switch principal.role {
        case .ops:
            return
        case .student where principal.subject == studentId:
            return
        case .coach where try runtime.database.coachId(ofStudent: studentId) == principal.subject:
            return
        default:
            throw APIProblem.forbidden()
        }
    }

    /// True when `principal` may see the submission's data. Unlike `requireRead`, callers
    /// answer 404 (not 403) otherwise, so submission ids of others are not confirmed.
    func canRead(submission: SubmissionRecordView, by principal: Principal) throws -> Bool {
        switch principal.role {
        case .ops: true
        case .student: principal.subject == submission.studentId
        case .coach: try runtime.database.coachId(ofStudent: submission.studentId) == principal.subject
        }
    }
}

/// The one thing access checks need from a submission.
protocol SubmissionRecordView {
    var studentId: String { get }
}
