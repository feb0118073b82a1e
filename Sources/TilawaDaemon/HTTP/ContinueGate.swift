import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTPTypes
import Synchronization

/// Sends `100 Continue` once, before the first read of the body.
///
/// `Sendable` on its own: the flag lives in a `Mutex`; the channel is `Sendable`.
final class ContinueGate: Sendable {
    private let channel: any Channel
    private let state = Mutex(false)

    init(channel: any Channel) {
        self.channel = channel
    }

    var sent: Bool { state.withLock { $0 } }

    func open() async throws {
        let first = state.withLock { sent in
            defer { sent = true }
            return !sent
        }
        guard first else { return }
        try await channel.writeAndFlush(HTTPResponsePart.head(HTTPResponse(status: .continue))).get()
    }
}

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
