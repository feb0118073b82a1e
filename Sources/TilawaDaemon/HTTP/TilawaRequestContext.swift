import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// The per-request context: Hummingbird's core storage plus who is asking.
public struct TilawaRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by `AuthMiddleware` on every `/v1` route.
    public var principal: Principal?
    /// The connection, to stop reading a refused upload (nil in router tests).
    let channel: (any Channel)?
    /// What inner middleware learn about the request that the outer ones report (the log).
    let record = RequestRecord()

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        principal = nil
        channel = source.channel
    }

    /// Uploads are streamed to disk with their own limit (`http.max_upload_bytes`); this
    /// bounds only bodies collected in memory (the PATCH notes).
    public var maxUploadSize: Int { 64 * 1024 }

    /// The authenticated caller, or 401 when the route was reached without one.
    func requirePrincipal() throws -> Principal {
        guard let principal else { throw APIProblem.unauthorized("missing_token", "Sign in again: no access token was sent.") }
        return principal
    }
}
