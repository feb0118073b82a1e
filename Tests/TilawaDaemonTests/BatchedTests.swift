import Synchronization
import Testing
@testable import TilawaDaemon

/// `Batched` (the pushes' device re-reads and outcomes, issue 45): the requests made while a
/// run is under way share the next run, and no answer comes from a run begun before its request.
@Suite("Batched: one run for the requests made meanwhile, each answered by a run begun after it")
struct BatchedTests {
    /// Runs started so far, and a gate the first run waits at until the test opens it.
    final class Runs: Sendable {
        let started = Mutex(0)
        let gate = AsyncStream<Void>.makeStream()
    }

    @Test("A hundred requests while the first run is held: two runs, every answer in its input's place, every answer from a run begun after its request")
    func requestsMadeMeanwhileShareTheNextRun() async throws {
        let runs = Runs()
        let batched = Batched<Int, (input: Int, run: Int)> { inputs in
            let run = runs.started.withLock { started in
                started += 1
                return started
            }
            if run == 1 { for await _ in runs.gate.stream { break } }
            return inputs.map { ($0, run) }
        }
        async let first = batched.run(0)
        // The first run has started (and waits at the gate) before the others ask.
        while runs.started.withLock({ $0 }) == 0 { await Task.yield() }
        let answers = await withTaskGroup(of: (asked: Int, input: Int, answer: (input: Int, run: Int)).self) { group in
            for input in 1...100 {
                group.addTask {
                    let asked = runs.started.withLock { $0 }
                    return (asked, input, await batched.run(input))
                }
            }
            // Everyone waits for the next run; then the first may end.
            while await batched.waiting < 100 { await Task.yield() }
            runs.gate.continuation.yield()
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(await first == (0, 1))
        #expect(answers.count == 100)
        #expect(answers.allSatisfy { $0.answer.input == $0.input }, "each output in its input's place")
        #expect(answers.allSatisfy { $0.answer.run > $0.asked }, "answered by a run begun after the request")
        #expect(runs.started.withLock { $0 } == 2, "the hundred shared one run")
        // Idle again: the next request runs at once, alone.
        #expect(await batched.run(7) == (7, 3))
    }
}
