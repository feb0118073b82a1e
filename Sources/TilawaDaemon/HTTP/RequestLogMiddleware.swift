import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// One log line per response, whatever answered it (a handler, a refusal, an unknown route):
/// method, path, route, status, principal and duration — never the token; the person a path
/// or a principal names as their pseudonym (`log.ids`). The outermost middleware, so that a
/// burst of refused tokens or unknown paths is visible to operations.
///
/// A 401 is that line at `notice`, as `request refused: not signed in`, with why (`reason`,
/// the problem's code: `expired_token`, `revoked_token`, `invalid_token` with the `detail`
/// saying which check failed, …) and the connection's address (`client`): one line per
/// refused request, above the `info` of every request, so that an operator at `log.level:
/// notice` sees a person's failing sign-ins, or someone trying tokens, without the traffic.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = TilawaRequestContext
    let routes: RouteTable
    let pseudonyms: LogPseudonyms

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
        var metadata: Logger.Metadata = [
            "method": "\(request.method)", "path": "\(pseudonyms.path(request.uri.path))",
            "route": "\(routes.match(request.uri.path)?.pattern ?? "-")", "status": "\(status)",
            "principal": "\(context.record.principal.map(pseudonyms.principal) ?? "-")",
            "ms": "\(Int((ContinuousClock.now - started).seconds * 1000))",
        ]
        if status == 401 {
            let refusal = context.record.refusal
            metadata["reason"] = "\(refusal?.code ?? "unauthorized")"
            if let detail = refusal?.detail { metadata["detail"] = "\(detail)" }
            metadata["client"] = "\(context.clientAddress)"
            context.logger.notice("request refused: not signed in", metadata: metadata)
            return
        }
        // A 500 is ours to look at; every other answer is the request's own business.
        context.logger.log(level: status == 500 ? .error : .info, "request", metadata: metadata)
    }
}
