import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// What is learnt about one request on its way in, for the middleware outside: contexts are
/// values copied inwards, so the principal the auth middleware finds is written here.
///
/// `Sendable` on its own: the state lives in a `Mutex`.
final class RequestRecord: Sendable {
    private let state = Mutex<String?>(nil)

    /// `role:subject` of the authenticated caller, nil before (or without) authentication.
    var principal: String? { state.withLock { $0 } }

    func note(_ principal: Principal) {
        state.withLock { $0 = "\(principal.role.rawValue):\(principal.subject)" }
    }
}
