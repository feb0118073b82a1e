import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TilawaDaemon
import TilawaStore

/// The store's failures reach a client as what it can do about them: a database that does not
/// answer or keeps refusing a change for colliding with others is a 503 with `Retry-After` (try
/// again; nothing was counted), a full disk 507, anything else a 500 — never a 500 for a wait.
@Suite("The store's failures as problems a client can act on")
struct StoreErrorProblemTests {
    @Test("database_unavailable and database_busy are 503 with Retry-After, storage_full 507, an I/O failure 500 internal_error")
    func mapping() async throws {
        let router = Router(context: TilawaRequestContext.self)
        router.add(middleware: ProblemMiddleware(routes: RouteTable(), pseudonyms: .clear))
        let failures: [String: StoreError] = [
            "unavailable": .unavailable("connection refused"), "busy": .busy("40001 eleven times"),
            "full": .storageFull("ENOSPC"), "io": .io("EIO"),
        ]
        for (path, error) in failures {
            router.get(RouterPath(path)) { _, _ -> Response in throw error }
        }
        try await Application(router: router).test(.router) { client in
            let expected: [(path: String, status: Int, code: String, retryAfter: String?)] = [
                ("unavailable", 503, "database_unavailable", "30"), ("busy", 503, "database_busy", "2"),
                ("full", 507, "storage_full", "300"), ("io", 500, "internal_error", nil),
            ]
            for case let (path, status, code, retryAfter) in expected {
                let response = try await client.execute(uri: "/\(path)", method: .get)
                let body = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                #expect(Int(response.status.code) == status, "\(path)")
                #expect(body?["code"] as? String == code, "\(path)")
                #expect(response.headers[.retryAfter] == retryAfter, "\(path)")
                #expect(response.headers[.contentType] == "application/problem+json", "\(path)")
                // The detail is for a person: no SQL, no errno, no internals.
                let detail = body?["detail"] as? String ?? ""
                #expect(!detail.isEmpty && !detail.contains("40001") && !detail.contains("ENOSPC") && !detail.contains("EIO"), "\(path): \(detail)")
            }
        }
    }
}

@Suite("tilawa_database_collisions_total follows the store's own count")
struct DatabaseCollisionMetricTests {
    @Test("0 before any scrape; each scrape adds what the store counted since the last; a count seen twice is added once")
    func followsTheStore() {
        let metrics = TilawaMetrics()
        metrics.observeDatabaseCollisions(0)
        #expect(metricValue("tilawa_database_collisions_total", in: metrics) == 0)
        metrics.observeDatabaseCollisions(3)
        metrics.observeDatabaseCollisions(3)
        #expect(metricValue("tilawa_database_collisions_total", in: metrics) == 3)
        metrics.observeDatabaseCollisions(7)
        #expect(metricValue("tilawa_database_collisions_total", in: metrics) == 7)
        // Two scrapes racing may hand in an older count after a newer one: never counted back.
        metrics.observeDatabaseCollisions(5)
        #expect(metricValue("tilawa_database_collisions_total", in: metrics) == 7)
    }
}
