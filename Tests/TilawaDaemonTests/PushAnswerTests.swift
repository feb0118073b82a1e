import AsyncHTTPClient
import Foundation
import NIOHTTP2
import Testing
@testable import TilawaDaemon

/// A send that got no answer (issue 45's bench): tried again like a 5xx, counted `retried`,
/// and logged with the kind of failure, so a stalled connection and a slow service tell
/// themselves apart in the daemon's log; one the service never processed (an HTTP/2 GOAWAY)
/// is not sent and goes again at once; and what FCM's 404s mean for the device and the channel.
@Suite("Push answers: a request that got no answer is tried again, its kind named; a refused stream is not sent; FCM's 404s")
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

    @Test("""
        A stream the service never processed — above a GOAWAY's last stream id (swift-nio-http2 closes it with CANCEL) or reset \
        with REFUSED_STREAM — is not sent, to be sent again at once; a stream closed otherwise, or a connection that closed \
        with the request open, may have been taken and is an answer that never came
        """)
    func refusedStreams() {
        let goAway = PushAnswer.unanswered(from: "api.push.apple.com", error: NIOHTTP2Errors.streamClosed(streamID: 3, errorCode: .cancel))
        guard case let .notSent(reason) = goAway else {
            Issue.record("\(goAway)")
            return
        }
        #expect(reason.hasPrefix("api.push.apple.com did not process the request"))
        #expect(goAway.result == "retried")
        #expect(PushAnswer.refusedStream(NIOHTTP2Errors.streamClosed(streamID: 5, errorCode: .refusedStream)))
        #expect(!PushAnswer.refusedStream(NIOHTTP2Errors.streamClosed(streamID: 5, errorCode: .internalError)))
        #expect(!PushAnswer.refusedStream(HTTPClientError.remoteConnectionClosed))
        if case .noAnswer = PushAnswer.unanswered(from: "o", error: HTTPClientError.remoteConnectionClosed) {} else {
            Issue.record("a connection closed with the request open may have been taken")
        }
    }

    /// FCM's answer to a send, as `FCMClient.send` reads it from the status and body.
    static func fcm(_ status: Int, _ body: String) -> PushAnswer {
        let (code, message) = FCMClient.errorCode(in: Data(body.utf8), status: status)
        return FCMClient.meaning(status: status, code: code, message: message, retryAfter: nil, account: "push@proj.iam.gserviceaccount.com",
                                 project: "proj", endpoint: "https://fcm.example/v1/projects/proj/messages:send")
    }

    @Test("FCM's 404 with the errorCode UNREGISTERED signs the device out (Firebase's meaning)")
    func fcmUnregistered() {
        let body = #"""
            {"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND",
             "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "UNREGISTERED"}]}}
            """#
        #expect(Self.fcm(404, body) == .unregistered(reason: "UNREGISTERED"))
    }

    @Test("""
        Any other 404 from FCM — NOT_FOUND without UNREGISTERED (no such project), or a bare 404 that is not Google's JSON \
        (a wrong endpoint) — signs no device out and drops nothing: the channel stops, naming the project and the endpoint, \
        as for a refused key
        """, arguments: [
            #"{"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND"}}"#,
            "<html><body>404 Not Found</body></html>", "",
        ])
    func fcmNotFound(_ body: String) {
        let answer = Self.fcm(404, body)
        guard case let .channelRefused(reason) = answer else {
            Issue.record("\(answer)")
            return
        }
        #expect(reason.contains("push.fcm.project_id") && reason.contains("proj") && reason.contains("push.fcm.endpoint")
                    && reason.contains("https://fcm.example/v1/projects/proj/messages:send"), "\(reason)")
        #expect(answer.result == "key_refused")
    }
}
