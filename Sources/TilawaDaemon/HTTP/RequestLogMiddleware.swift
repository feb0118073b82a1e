import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// One log line per response, whatever answered it (a handler, a refusal, an unknown route):
/// method, path, route, status, principal and duration — never the token. The outermost
/// middleware, so that a burst of refused tokens or unknown paths is visible to operations.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = TilawaRequestContext
    let routes: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, context: context, status: response.status.code, started: started)
            return response
        } catch {
            log(request, context: context, status: (error as? any HTTPResponseError)?.status.code ?? 500, started: started)
            throw error
        }
    }

    private func log(_ request: Request, context: Context, status: Int, started: ContinuousClock.Instant) {
        let metadata: Logger.Metadata = [
            "method": "\(request.method)", "path": "\(request.uri.path)", "route": "\(routes.match(request.uri.path)?.pattern ?? "-")",
            "status": "\(status)", "principal": "\(context.record.principal ?? "-")",
            "ms": "\(Int((ContinuousClock.now - started).seconds * 1000))",
        ]
        // A 500 is ours to look at; every other answer is the request's own business.
        context.logger.log(level: status == 500 ? .error : .info, "request", metadata: metadata)
    }
}
