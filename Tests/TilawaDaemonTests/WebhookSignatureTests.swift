import Foundation
import Testing
@testable import TilawaDaemon

@Suite("Webhook signature: Tilawa-Signature t=…,v1=… (HMAC-SHA256 of \"<t>.<body>\")")
struct WebhookSignatureTests {
    private let secret = Array("whsec-test".utf8)
    private let body = Data(#"{"id":"evt_1","type":"feedback_ready"}"#.utf8)
    private let signedAt = Date(timeIntervalSince1970: 1_795_359_600)

    @Test("The header matches an independent HMAC-SHA256 (Python's hmac) of \"<t>.<body>\"")
    func knownVector() {
        #expect(WebhookSignature.header(body: body, secret: secret, timestamp: 1_795_359_600)
            == "t=1795359600,v1=f5d532a77f5b02512089cf4028653b737670983eecf7df93f09150f5a1797fc3")
        #expect(WebhookSignature.header(body: Data(), secret: secret, now: signedAt.addingTimeInterval(0.9))
            == "t=1795359600,v1=086b907473a50fca4eae4e101f3cbda0e883b10a0c7601cab1d269959b5487f3",
            "an empty body, and t is the whole seconds of now")
    }

    @Test("A header verifies within the tolerance, also with spaces, unknown schemes, several v1 and uppercase hex")
    func verifies() throws {
        let header = WebhookSignature.header(body: body, secret: secret, now: signedAt)
        try WebhookSignature.verify(header: header, body: body, secret: secret, now: signedAt)
        try WebhookSignature.verify(header: header, body: body, secret: secret, now: signedAt.addingTimeInterval(300))
        try WebhookSignature.verify(header: header, body: body, secret: secret, now: signedAt.addingTimeInterval(-300))
        let v1 = String(header.split(separator: "v1=")[1])
        let other = String(repeating: "0", count: 64)
        try WebhookSignature.verify(header: "t=1795359600, v2=abc, v1=\(other), v1=\(v1)", body: body, secret: secret, now: signedAt)
        try WebhookSignature.verify(header: "v1=\(v1.uppercased()),t=1795359600", body: body, secret: secret, now: signedAt)
        try WebhookSignature.verify(header: header, body: body, secret: secret, now: signedAt.addingTimeInterval(3_000), tolerance: 3_600)
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        var name: String
        var header: String
        var body: Data
        var secret: [UInt8]
        var now: Date
        var expected: WebhookSignatureError
        var testDescription: String { name }
    }

    static let refusals: [Refusal] = {
        let secret = Array("whsec-test".utf8)
        let body = Data(#"{"id":"evt_1","type":"feedback_ready"}"#.utf8)
        let at = Date(timeIntervalSince1970: 1_795_359_600)
        let good = WebhookSignature.header(body: body, secret: secret, now: at)
        let v1 = String(good.split(separator: "v1=")[1])
        return [
            Refusal(name: "a changed body", header: good, body: Data(#"{"id":"evt_2","type":"feedback_ready"}"#.utf8),
                    secret: secret, now: at, expected: .mismatch),
            Refusal(name: "another secret", header: good, body: body, secret: Array("whsec-test\n".utf8), now: at, expected: .mismatch),
            Refusal(name: "another timestamp", header: "t=1795359601,v1=\(v1)", body: body, secret: secret,
                    now: at, expected: .mismatch),
            Refusal(name: "301 s old", header: good, body: body, secret: secret, now: at.addingTimeInterval(301),
                    expected: .outsideTolerance(seconds: 301)),
            Refusal(name: "301 s ahead", header: good, body: body, secret: secret, now: at.addingTimeInterval(-301),
                    expected: .outsideTolerance(seconds: -301)),
            Refusal(name: "no t", header: "v1=\(v1)", body: body, secret: secret, now: at, expected: .malformedHeader),
            Refusal(name: "two t", header: "t=1795359600,t=1795359600,v1=\(v1)", body: body, secret: secret, now: at,
                    expected: .malformedHeader),
            Refusal(name: "t not a number", header: "t=soon,v1=\(v1)", body: body, secret: secret, now: at, expected: .malformedHeader),
            Refusal(name: "no v1", header: "t=1795359600", body: body, secret: secret, now: at, expected: .malformedHeader),
            Refusal(name: "v1 not hex", header: "t=1795359600,v1=\(String(repeating: "z", count: 64))", body: body,
                    secret: secret, now: at, expected: .malformedHeader),
            Refusal(name: "v1 too short", header: "t=1795359600,v1=\(v1.dropLast(2))", body: body, secret: secret, now: at,
                    expected: .malformedHeader),
            Refusal(name: "empty header", header: "", body: body, secret: secret, now: at, expected: .malformedHeader),
        ]
    }()

    @Test("Refused: tampering, a wrong secret, a stale or future timestamp, a malformed header", arguments: refusals)
    func refuses(_ refusal: Refusal) {
        #expect(throws: refusal.expected) {
            try WebhookSignature.verify(header: refusal.header, body: refusal.body, secret: refusal.secret, now: refusal.now)
        }
    }

    @Test("Errors carry stable snake_case codes")
    func codes() {
        #expect(WebhookSignatureError.mismatch.code == "signature_mismatch")
        #expect(WebhookSignatureError.malformedHeader.code == "malformed_signature_header")
        #expect(WebhookSignatureError.outsideTolerance(seconds: 400).code == "signature_timestamp_outside_tolerance")
    }
}
