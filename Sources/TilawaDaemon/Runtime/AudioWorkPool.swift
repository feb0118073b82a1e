import Foundation
import NIOPosix

/// Threads for CPU-heavy audio work (decode, analysis, encode), off the NIO event loops.
///
/// One thread per core by default: uploads and encode jobs queue here instead of stalling
/// the loops that serve other requests. The file I/O of the HTTP layer uses NIO's own pool,
/// so a burst of analyses never delays playback.
public final class AudioWorkPool: Sendable {
    private let pool: NIOThreadPool

    /// Starts `threads` worker threads.
    public init(threads: Int) {
        pool = NIOThreadPool(numberOfThreads: max(1, threads))
        pool.start()
    }

    /// Runs blocking `work` on a pool thread and returns its result.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.runIfActive(work)
    }

    /// Stops the threads once queued work has finished.
    public func shutdown() async {
        try? await pool.shutdownGracefully()
    }
}
