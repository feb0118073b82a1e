import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTPTypes
import Synchronization

/// A request body that opens its `ContinueGate` before its first read.
struct ContinueBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let base: RequestBody
    let gate: ContinueGate

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let gate: ContinueGate

        mutating func next() async throws -> ByteBuffer? {
            try await gate.open()
            return try await base.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), gate: gate)
    }
}
