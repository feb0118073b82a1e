import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
@testable import TilawaDaemon
import TilawaPostgres
import TilawaStore
import TilawaTestSupport

/// A valid token checked while the database does not answer is the database's failure, not
/// the token's: a 401 would sign every phone out during an outage. The store here is real —
/// PostgreSQL's engine pointed at a loopback port no server listens on — so its failure is the
/// one a node sees when its server is down.
@Suite("A token checked while the database is away: 503 database_unavailable with Retry-After, never 401")
struct AuthStoreFailureTests {
    private static func unreachableStore() throws -> PostgresStore {
        let port = try unusedPort()
        let location = try #require(PostgresLocation(url: "postgres://tilawa@127.0.0.1:\(port)/tilawa"))
        return PostgresStore(location: location, password: nil, maximumConnections: 1, logger: Logger(label: "test"))
    }

    private static func verifier(_ store: PostgresStore) async throws -> BearerVerifier {
        let configuration = TilawaConfiguration(stateDirectory: "var", workingDirectory: FileManager.default.temporaryDirectory.path)
        return BearerVerifier(authority: try await TokenAuthority(key: authTestKey), configuration: configuration, provider: nil,
                              database: AppDatabase(engine: store))
    }

    @Test("the verifier reports the store's failure (storeFailed(.unavailable)), not invalid_token")
    func verifierCarriesStoreError() async throws {
        let store = try Self.unreachableStore()
        let verifier = try await Self.verifier(store)
        let token = try await verifier.authority.issue(subject: "S1001", role: .student, ttl: 3600, now: authTestNow)
        let error = await #expect(throws: AuthError.self) { try await verifier.verify(token, now: authTestNow) }
        guard case let .storeFailed(failure) = error else {
            Issue.record("expected storeFailed, got \(String(describing: error))")
            await store.shutdown()
            return
        }
        #expect(failure.code == "database_unavailable")
        await store.shutdown()
    }

    @Test("through the middlewares: a student's token is 503 with Retry-After and no challenge; an operator's, never looked up, passes")
    func answeredAsStoreProblem() async throws {
        let store = try Self.unreachableStore()
        let verifier = try await Self.verifier(store)
        let student = try await verifier.authority.issue(subject: "S1001", role: .student, ttl: 3600, now: authTestNow)
        let ops = try await verifier.authority.issue(subject: "ops", role: .ops, ttl: 3600, now: authTestNow)
        let router = Router(context: TilawaRequestContext.self)
        router.add(middleware: ProblemMiddleware(routes: RouteTable(), pseudonyms: .clear))
        router.add(middleware: AuthMiddleware(bearer: verifier, clock: { authTestNow }))
        router.get("v1/me") { _, context -> String in context.principal?.subject ?? "" }
        try await Application(router: router).test(.router) { client in
            let refused = try await client.execute(uri: "/v1/me", method: .get, headers: [.authorization: "Bearer \(student)"])
            let body = try JSONSerialization.jsonObject(with: Data(buffer: refused.body)) as? [String: Any]
            #expect(refused.status == .serviceUnavailable)
            #expect(body?["code"] as? String == "database_unavailable")
            #expect(refused.headers[.retryAfter] == "30")
            #expect(refused.headers[.wwwAuthenticate] == nil, "a challenge tells the app to sign in again")
            let passed = try await client.execute(uri: "/v1/me", method: .get, headers: [.authorization: "Bearer \(ops)"])
            #expect(passed.status == .ok)
        }
        await store.shutdown()
    }
}
