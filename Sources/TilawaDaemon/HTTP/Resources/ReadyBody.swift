import Foundation
import HTTPTypes
import Hummingbird
import TilawaStore

/// `GET /readyz` when the node takes requests (200).
struct ReadyBody: Encodable {
    /// `ok`, or `degraded` while a check fails that the node serves despite (`failing_checks`).
    var status: String
    var uptimeSeconds: Int
    var startedAt: Date
    var pid: Int
    /// `pid@host`: which node answered (behind a balancer), as `status`' cluster view names it.
    var node: String
    /// What fails while the node serves (an S3 store that does not answer); empty when `ok`.
    var failingChecks: [Readiness.Failure]
}
