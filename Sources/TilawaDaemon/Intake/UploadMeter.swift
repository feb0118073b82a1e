import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOFileSystem
import Synchronization
import TilawaStore

/// Counts and hashes the bytes of one upload as they stream past.
///
/// A `final class` holding a `Mutex` is `Sendable` on its own: the state is only reached
/// through the mutex.
final class UploadMeter: Sendable {
    private struct State {
        var bytes = 0
        var hasher = SHA256()
        var exceeded = false
        var bodyFailed = false
    }

    private let state = Mutex(State())
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Adds a chunk; throws once the total passes the limit.
    func count(_ buffer: ByteBuffer) throws {
        try state.withLock { state in
            state.bytes += buffer.readableBytes
            if state.bytes > limit {
                state.exceeded = true
                throw APIProblem.payloadTooLarge(limit: limit)
            }
            buffer.withUnsafeReadableBytes { state.hasher.update(bufferPointer: $0) }
        }
    }

    var exceeded: Bool { state.withLock { $0.exceeded } }

    /// Notes that reading the body failed on the client's side (as opposed to the disk).
    func noteBodyFailure() { state.withLock { $0.bodyFailed = true } }

    var bodyFailed: Bool { state.withLock { $0.bodyFailed } }

    /// Bytes seen and the hex SHA-256 of them.
    var result: (Int, String) {
        state.withLock { state in
            (state.bytes, state.hasher.finalize().map { String(format: "%02x", $0) }.joined())
        }
    }
}
