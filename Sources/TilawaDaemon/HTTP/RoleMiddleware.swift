import HTTPTypes
import Hummingbird

/// A route group for some roles only (the back office: operations): anyone else is 403
/// `forbidden` with `refusal`, the group's one sentence, before the handler runs, so before any
/// byte of the body is read (a large or unframed one is not read at all: `refuseBody`).
///
/// Added to a group of its own inside `/v1` (`group.group().add(middleware:)`), so
/// `AuthMiddleware` has put the principal in the context first. Which record a caller may
/// touch (`AccessPolicy`) stays the handlers': that is not a role's question.
struct RoleMiddleware: RouterMiddleware {
    typealias Context = TilawaRequestContext
    let roles: Set<Role>
    let refusal: String

    init(_ roles: Role..., refusal: String) {
        self.roles = Set(roles)
        self.refusal = refusal
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // OPTIONS passes, as through `AuthMiddleware`: no principal, no data.
        if request.method == .options { return try await next(request, context) }
        let principal = try context.requirePrincipal()
        guard roles.contains(principal.role) else {
            context.refuseBody(of: request)
            throw APIProblem.forbidden(refusal)
        }
        return try await next(request, context)
    }
}
