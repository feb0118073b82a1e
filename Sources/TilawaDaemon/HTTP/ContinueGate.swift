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
