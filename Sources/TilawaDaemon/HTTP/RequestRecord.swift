import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// What is learnt about one request on its way in, for the middleware outside: contexts are
/// values copied inwards, so the principal the auth middleware finds, and why a request was
/// refused as not signed in, are written here.
///
/// `Sendable` on its own: the state lives in a `Mutex`.
final class RequestRecord: Sendable {
    /// Why a request was answered 401: the problem's `code` and its sentence (never the token).
    struct Refusal: Sendable, Equatable {
        var code: String
        var detail: String
    }

    private struct Noted: Sendable {
        var principal: Principal?
        var refusal: Refusal?
    }

    private let state = Mutex<Noted>(Noted())

    /// The authenticated caller, nil before (or without) authentication.
    var principal: Principal? { state.withLock { $0.principal } }

    /// Why the request was refused as not signed in, nil unless it was.
    var refusal: Refusal? { state.withLock { $0.refusal } }

    func note(_ principal: Principal) {
        state.withLock { $0.principal = principal }
    }

    /// Keeps `code` and `detail` for the log when `status` is 401; any other answer is not a
    /// refusal of who is asking.
    func noteRefusal(status: HTTPResponse.Status, code: String, detail: String) {
        guard status == .unauthorized else { return }
        state.withLock { $0.refusal = Refusal(code: code, detail: detail) }
    }

    /// `noteRefusal` of a problem.
    func noteRefusal(_ problem: APIProblem) {
        noteRefusal(status: problem.status, code: problem.code, detail: problem.detail)
    }
}

/// A request context that carries a `RequestRecord`: what the middleware that report on a
/// request (the log) learn from those inside.
protocol RecordedRequestContext: RequestContext {
    var record: RequestRecord { get }
}

extension TilawaRequestContext: RecordedRequestContext {}
