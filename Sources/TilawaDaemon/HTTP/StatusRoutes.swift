import Foundation
import Hummingbird

/// `GET /v1/status`: the operations report, for role `ops` only — the same document
/// `tilawa status --json` prints, the daemon describing itself.
struct StatusRoutes: Sendable {
    let api: APIContext

    func register(on group: RouterGroup<TilawaRequestContext>) {
        group.get("status", use: status)
    }

    @Sendable func status(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        guard principal.role == .ops else { throw APIProblem.forbidden("Only operations may read the status report.") }
        let reporter = StatusReporter(configuration: api.runtime.configuration)
        return try api.json(await reporter.report(now: api.now, database: api.runtime.database, startedAt: api.startedAt))
    }
}
