import Foundation
import Synchronization

extension S3ArtifactStorage {
    // MARK: Retries

    /// Runs a request again when the store did not answer or said it could not just now (every
    /// request here is idempotent: a PUT of the same key and bytes, a GET, a HEAD, a DELETE, a
    /// listing): twice more, after 0.2 s and 1 s. A refusal (keys, no such key) is not retried.
    public static func retrying<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        var delays: [Duration] = [.milliseconds(200), .seconds(1)]
        while true {
            do {
                return try await body()
            } catch let error as S3Error where isTransient(error) && !delays.isEmpty {
                try await Task.sleep(for: delays.removeFirst())
            }
        }
    }

    /// Whether a failure may pass: no answer, or a 5xx (S3's `InternalError`, `SlowDown`).
    public static func isTransient(_ error: S3Error) -> Bool {
        error.code == "unreachable" || (500...599).contains(error.status ?? 0)
    }

    // MARK: Blocking

    /// Runs `body` on the concurrency pool and waits for it on this thread — which must not be
    /// one of that pool's (the callers are the audio work pool's, the sweep's or a command's
    /// threads), or enough such waits would leave no thread to run `body`.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Outcome<T>()
        Task.detached {
            do {
                outcome.finish(.success(try await body()))
            } catch {
                outcome.finish(.failure(error))
            }
        }
        return try outcome.wait()
    }
}

/// One result handed from a task to a waiting thread.
private final class Outcome<T: Sendable>: Sendable {
    private let result = Mutex<Result<T, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    func finish(_ value: Result<T, any Error>) {
        result.withLock { $0 = value }
        done.signal()
    }

    func wait() throws -> T {
        done.wait()
        guard let value = result.withLock({ $0 }) else { throw S3Error(code: "internal", message: "no result") }
        return try value.get()
    }
}
