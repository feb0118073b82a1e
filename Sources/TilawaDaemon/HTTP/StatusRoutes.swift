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
        var report = await reporter.report(now: api.now, database: api.runtime.database, startedAt: api.startedAt)
        if let provider = await api.provider?.report {
            report.identityProvider = .init(
                keySetAgeSeconds: provider.fetchedAt.map { Int(api.now.timeIntervalSince($0)) }, keys: provider.keyCount,
                skippedKeys: provider.skipped, lastFetchError: provider.lastError, lastFetchErrorAt: provider.lastErrorAt)
        }
        return try api.json(report)
    }
}
