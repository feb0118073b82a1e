import Foundation
import Testing
import TilawaTestSupport

/// Mutated fixtures (`FixtureMutator`) through `tilawa analyze`, each in its own process with a time budget:
/// a crash shows as a signal, a hang as a timeout, and either fails the case.
///
/// A few hundred cases run in `make test`; `FUZZ_CASES=10000` runs more.
@Suite("Fuzzing the decoder and analysis with mutated fixtures", .heavy)
struct FuzzTests {
    @Test("No mutated file crashes, hangs, or answers anything but a verdict")
    func mutatedFixtures() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let total = FixtureMutator.caseCount(standard: 240)
        let failures = try await withThrowingTaskGroup(of: String?.self) { group in
            var next = 0
            var failures: [String] = []
            func add() throws {
                guard next < total else { return }
                let index = next
                next += 1
                let (name, data) = try FixtureMutator.mutate(index)
                let path = scratch.path(name)
                try data.write(to: URL(fileURLWithPath: path))
                group.addTask {
                    defer { try? FileManager.default.removeItem(atPath: path) }
                    let result = try await runProcess(tilawaBinary, ["analyze", "--json", path], timeout: 30)
                    if result.timedOut { return "\(name): no verdict within 30 s" }
                    if result.signaled { return "\(name): killed by signal \(result.status)" }
                    guard result.status == 0 || result.status == 65 else { return "\(name): exit \(result.status): \(result.stderr)" }
                    guard (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) != nil else { return "\(name): no JSON verdict" }
                    if result.status == 65, result.stderr.split(separator: "\n").count != 1 { return "\(name): stderr is not one line" }
                    return nil
                }
            }
            // Two at a time: one per core.
            try add()
            try add()
            while let outcome = try await group.next() {
                if let outcome { failures.append(outcome) }
                try add()
            }
            return failures
        }
        #expect(failures.isEmpty, "\(failures.prefix(20))")
    }
}
