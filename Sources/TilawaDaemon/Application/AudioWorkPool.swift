import Foundation
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Threads for CPU-heavy audio work (decode, analysis, encode), off the NIO event loops.
///
/// One thread per core by default: uploads and encode jobs queue here instead of stalling
/// the loops that serve other requests. The file I/O of the HTTP layer uses NIO's own pool,
/// so a burst of analyses never delays playback.
///
/// A pool for background work (encode jobs, coach replies) runs its threads at a lower CPU
/// priority (`niceness`, Linux per-thread nice): a student waiting for the answer to an
/// upload gets the cores first, and the encoder uses what is left. Threads a job starts
/// (the Opus encoder thread) inherit it.
public final class AudioWorkPool: Sendable {
    private let pool: NIOThreadPool
    private let niceness: Int32

    /// Starts `threads` worker threads; `niceness` 0 keeps the process's priority.
    public init(threads: Int, niceness: Int32 = 0) {
        pool = NIOThreadPool(numberOfThreads: max(1, threads))
        self.niceness = niceness
        pool.start()
    }

    /// Runs blocking `work` on a pool thread and returns its result.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let niceness = self.niceness
        return try await pool.runIfActive {
            if niceness != 0 {
                // On Linux the nice value is per thread and `who` 0 is the calling thread (setpriority(2),
                // BUGS); lowering it needs no privilege, and a failure only costs fairness.
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
            }
            return try work()
        }
    }

    /// Stops the threads once queued work has finished.
    public func shutdown() async {
        try? await pool.shutdownGracefully()
    }
}
