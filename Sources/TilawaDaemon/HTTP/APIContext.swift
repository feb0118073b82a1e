import Foundation
import HTTPTypes
import Hummingbird
import Logging
import TilawaCore
import TilawaStore

/// What the HTTP handlers share: the runtime, the audio pool, metrics, auth.
public struct APIContext: Sendable {
    public let runtime: TilawaRuntime
    public let pool: AudioWorkPool
    public let wakeup: WakeupSignal
    public let metrics: TilawaMetrics
    public let authority: TokenAuthority
    public let startedAt: Date
    /// One request at a time per resumable upload, shared by the routes and the start-up recovery.
    let uploadLocks = UploadLocks()
    /// Places a test may hold a request at, to make an order that is otherwise a race (none
    /// installed in the daemon: one lock and a nil check where they are asked).
    let testHooks = TestHooks()
    /// The identity provider's token verifier (its key set cached for the process); nil
    /// when none is configured.
    let provider: ProviderTokenVerifier?
    /// The SCIM client's bearer token (`scim.token_file`, read at start-up); nil: SCIM is off
    /// and `/scim/v2/` answers 404.
    let scimToken: [UInt8]?
    /// Bearer tokens, local or the provider's, to principals.
    var bearer: BearerVerifier {
        BearerVerifier(authority: authority, configuration: runtime.configuration, provider: provider, database: runtime.database)
    }

    /// Creates the context; `scimToken` is `TilawaConfiguration.readSCIMToken()`'s.
    public init(runtime: TilawaRuntime, pool: AudioWorkPool, wakeup: WakeupSignal, metrics: TilawaMetrics,
                authority: TokenAuthority, startedAt: Date, scimToken: [UInt8]? = nil) {
        self.runtime = runtime
        self.scimToken = scimToken
        self.pool = pool
        self.wakeup = wakeup
        self.metrics = metrics
        self.authority = authority
        self.startedAt = startedAt
        provider = BearerVerifier.provider(for: runtime.configuration, clock: runtime.clock)
    }

    var access: AccessPolicy { AccessPolicy(runtime: runtime) }
    var now: Date { runtime.clock() }

    /// A path parameter that must be an `Identifier` (never used raw in a file path).
    func identifier(_ name: String, in context: TilawaRequestContext) throws -> String {
        guard let value = context.parameters.get(name), Identifier(rawValue: value) != nil else {
            throw APIProblem.badRequest("invalid_identifier", "The \(name) in the address is not a valid id.")
        }
        return value
    }

    /// The record the path's `id` names (a reply, a comment) when the caller may read the
    /// submission it belongs to; otherwise 404 naming `what`, the same for a record that does
    /// not exist and one that is someone else's.
    func visible<Record: Sendable>(
        _ what: String, in context: TilawaRequestContext, fetch: (String) async throws -> Record?,
        submissionId: (Record) -> String
    ) async throws -> Record {
        let principal = try context.requirePrincipal()
        let id = try identifier("id", in: context)
        guard let record = try await fetch(id),
              let submission = try await runtime.database.submission(id: submissionId(record)),
              try await access.canRead(submission: submission, by: principal) else {
            throw APIProblem.notFound("\(what) with this id")
        }
        return record
    }

    /// A JSON response.
    func json(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try APIJSON.encoder().encode(value))))
    }
}

extension SubmissionRecord: SubmissionRecordView {}
