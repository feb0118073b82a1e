import HTTPTypes
import Testing
@testable import TilawaDaemon

/// A phone refused for a key still in use must know to come back: the 409 says when.
@Suite("idempotency_key_in_use carries Retry-After")
struct KeyInUseRetryTests {
    @Test("409 idempotency_key_in_use with Retry-After of a few seconds; a reused key is final, with none")
    func retryAfter() {
        let inUse = SubmissionRoutes.problem(.keyInUse)
        #expect(inUse.status == .conflict && inUse.code == "idempotency_key_in_use")
        #expect(inUse.headers[.retryAfter].flatMap(Int.init).map { (1...30).contains($0) } == true)
        #expect(SubmissionRoutes.problem(.keyReused).headers[.retryAfter] == nil)
    }
}
