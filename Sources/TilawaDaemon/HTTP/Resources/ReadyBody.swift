import Foundation
import HTTPTypes
import Hummingbird
import TilawaStore

/// `GET /readyz` when ready.
struct ReadyBody: Encodable {
    var status: String
    var uptimeSeconds: Int
    var startedAt: Date
    var pid: Int
    /// `pid@host`: which node answered (behind a balancer), as `status`' cluster view names it.
    var node: String
}
