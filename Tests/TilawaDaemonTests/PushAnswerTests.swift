import AsyncHTTPClient
import Foundation
import Testing
@testable import TilawaDaemon

/// A send that got no answer (issue 45's bench): tried again like a 5xx, counted `retried`,
/// and logged with the kind of failure, so a stalled connection and a slow service tell
/// themselves apart in the daemon's log.
@Suite("Push answers: a request that got no answer is tried again, its kind named")
struct PushAnswerTests {
    struct Unexpected: Error {}

    @Test("Each failure without an answer has its kind", arguments: [
        (HTTPClientError.deadlineExceeded as any Error, "timeout"), (HTTPClientError.readTimeout, "timeout"),
        (HTTPClientError.remoteConnectionClosed, "connection_closed"), (HTTPClientError.connectTimeout, "connect"),
        (HTTPClientError.tlsHandshakeTimeout, "connect"), (HTTPClientError.cancelled, "cancelled"), (CancellationError(), "cancelled"),
        (HTTPClientError.invalidURL, "other"), (Unexpected(), "other"),
    ] as [(any Error, String)])
    func kinds(_ error: any Error, _ kind: String) {
        #expect(PushAnswer.failureKind(error) == kind)
    }

    @Test("No answer is a retry for the metric, and its reason names the origin and the error")
    func unanswered() {
        let answer = PushAnswer.unanswered(from: "https://api.push.apple.com", error: HTTPClientError.deadlineExceeded)
        guard case let .noAnswer(kind, reason) = answer else {
            Issue.record("\(answer)")
            return
        }
        #expect(kind == "timeout" && reason.hasPrefix("no answer from https://api.push.apple.com: "))
        #expect(answer.result == "retried")
    }
}
