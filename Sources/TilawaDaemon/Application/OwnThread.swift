import Foundation

/// Blocking work that may take minutes (a backup, the full artifact sweep) on a thread of its
/// own: it must not hold one of the few threads of the concurrency pool (two on a 2-core box),
/// which every request of the HTTP server needs.
enum OwnThread {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }
}
