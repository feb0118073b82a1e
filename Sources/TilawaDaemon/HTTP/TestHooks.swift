import Synchronization

/// Where a test may hold a request for a moment, to put two things in the order it checks
/// (the phone gone *before* its refusal is written, say). Nothing is installed outside tests.
final class TestHooks: Sendable {
    typealias Hook = @Sendable (String) async -> Void
    private let refusalAnswer = Mutex<Hook?>(nil)

    /// Called with the upload's id before the body of a refusal answered to a completing
    /// request is written.
    func beforeRefusalAnswer(_ uploadId: String) async {
        if let hook = refusalAnswer.withLock({ $0 }) { await hook(uploadId) }
    }

    /// Installs (or, with nil, removes) the hook `beforeRefusalAnswer` calls.
    func holdRefusalAnswers(_ hook: Hook?) {
        refusalAnswer.withLock { $0 = hook }
    }
}
