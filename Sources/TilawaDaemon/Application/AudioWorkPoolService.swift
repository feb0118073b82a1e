import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import UnixSignals

/// Keeps the audio worker pools for as long as the daemon runs and shuts their threads down
/// at the end; first in the group, so it stops last, after everything that hands them work.
struct AudioWorkPoolService: Service {
    let pools: [AudioWorkPool]

    func run() async throws {
        // Returns at graceful shutdown, throws when cancelled: either way the threads go.
        try? await gracefulShutdown()
        for pool in pools { await pool.shutdown() }
    }
}
