import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOFileSystem
import Synchronization
import TilawaStore

/// A request body passed through an `UploadMeter` on its way to the staging file.
struct MeteredBody<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer

    let base: Base
    let meter: UploadMeter

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let meter: UploadMeter

        mutating func next() async throws -> ByteBuffer? {
            let buffer: ByteBuffer?
            do {
                buffer = try await base.next()
            } catch {
                meter.noteBodyFailure()
                throw error
            }
            if let buffer { try meter.count(buffer) }
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), meter: meter)
    }
}
