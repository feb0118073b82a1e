import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Turns every error a handler throws into a problem+json response: `APIProblem` as it
/// is, Hummingbird's own `HTTPError` (unknown route, bad method) with a code named after
/// its status, and anything else as a logged 500 — one request's failure never reaches
/// the server.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as APIProblem {
            return try problem.response(from: request, context: context)
        } catch let error as HTTPError {
            let code = switch error.status {
            case .notFound: "not_found"
            case .methodNotAllowed: "method_not_allowed"
            case .contentTooLarge: "payload_too_large"
            case .badRequest: "bad_request"
            default: "http_\(error.status.code)"
            }
            return try APIProblem(error.status, code: code, detail: error.body ?? error.status.reasonPhrase, headers: error.headers)
                .response(from: request, context: context)
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(error)", "path": "\(request.uri.path)"])
            return try APIProblem(.internalServerError, code: "internal_error",
                                  detail: "Something went wrong on our side; nothing was counted. Please try again.")
                .response(from: request, context: context)
        }
    }
}
