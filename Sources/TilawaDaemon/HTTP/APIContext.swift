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

    /// Creates the context.
    public init(runtime: TilawaRuntime, pool: AudioWorkPool, wakeup: WakeupSignal, metrics: TilawaMetrics,
                authority: TokenAuthority, startedAt: Date) {
        self.runtime = runtime
        self.pool = pool
        self.wakeup = wakeup
        self.metrics = metrics
        self.authority = authority
        self.startedAt = startedAt
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

    /// A JSON response.
    func json(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try APIJSON.encoder().encode(value))))
    }
}

extension SubmissionRecord: SubmissionRecordView {}
