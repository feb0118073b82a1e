import Testing
@testable import TilawaDaemon

/// Which claimed jobs a start gives back (`requeueAbandonedJobs`): only those of a dead process
/// of this host. A daemon's workers are `pid@host#n`; another host's workers (nodes sharing one
/// PostgreSQL) are never judged from here.
@Suite("Encode workers: a dead process of this host gives its jobs back, nobody else's")
struct WorkerLivenessTests {
    @Test("Alive or not, by identity", arguments: [
        ("41@box", true, true),
        ("41@box", false, false),
        ("41@box#0", true, true),
        ("41@box#3", false, false),
        ("41@other-box", false, true),
        ("41@other-box#1", false, true),
        ("not-a-worker", false, false),
        ("x@box", true, false),
    ])
    func liveness(identity: String, processExists: Bool, alive: Bool) {
        #expect(EncodeJobRunner.isAlive(identity, host: "box") { _ in processExists } == alive)
    }
}
