import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import TilawaStore

/// A one-way flag another thread reads: set at graceful shutdown, polled by the sweep.
/// A `final class` holding a `Mutex` is `Sendable` on its own: the flag is only reached through it.
final class StopRequest: Sendable {
    private let requested = Mutex(false)

    func request() { requested.withLock { $0 = true } }
    var isRequested: Bool { requested.withLock { $0 } }
}
