import Foundation
import HTTPTypes
import Hummingbird
import Synchronization
import Testing
import TilawaTestSupport

/// The suite's own rules, so that a verdict never depends on how busy the machine is.
@Suite("The suite itself: no fixed read timeout, a bounded load")
struct SuiteHygieneTests {
    /// HummingbirdTesting's live (20 s) and AsyncHTTPClient (15 s) frameworks give up on a slow
    /// answer: a test talks to a live daemon through `live {}` (`LiveTesting.swift`) only.
    @Test("no test uses HummingbirdTesting's .live or .ahc client: every live request goes through LiveClient")
    func noFrameworkLiveClient() throws {
        let scanned = try Self.testLines(matching: Regex(#"\.test\(\s*\.(live|ahc)\b"#))
        #expect(scanned.files > 100, "the test sources were found")
        #expect(scanned.offenders.isEmpty, "use `live { client in … }` instead:\n\(scanned.offenders.joined(separator: "\n"))")
    }

    /// Pids wrap at 32,768 on these machines and a suite spawns thousands of processes: a
    /// signal sent by number after the child was reaped can reach an unrelated process, such
    /// as a server the whole run shares. Children are signalled through `SpawnedProcess.signal`.
    @Test("no test signals a process by number: SpawnedProcess.signal only (it never signals a reaped child's pid)")
    func noSignalsByNumber() throws {
        let scanned = try Self.testLines(matching: Regex(#"(^|[^.\w])kill\("#), except: ["kill(pid, 0)", "func kill("],
                                         skipping: "SpawnedProcess.swift")
        #expect(scanned.offenders.isEmpty, "signal children with SpawnedProcess.signal:\n\(scanned.offenders.joined(separator: "\n"))")
    }

    /// The lines of the Swift files under `Tests/` (but `skipping`) that match `pattern` and
    /// hold none of `except`, comments left out, as `path:line: text`; and how many files were read.
    static func testLines(matching pattern: Regex<AnyRegexOutput>, except: [String] = [], skipping: String? = nil) throws
        -> (offenders: [String], files: Int) {
        let tests = packageRoot.appendingPathComponent("Tests")
        let files = (FileManager.default.enumerator(atPath: tests.path)?.compactMap { $0 as? String } ?? [])
            .filter { $0.hasSuffix(".swift") && !(skipping.map($0.hasSuffix) ?? false) }
        var offenders: [String] = []
        for file in files {
            let text = try String(contentsOf: tests.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains(pattern) && !except.contains(where: line.contains) && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                offenders.append("Tests/\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        return (offenders, files.count)
    }

    /// A request merely slow (past the framework client's 20 s) is answered, not timed out.
    @Test("a live request answered after 21 s is read, not failed by a read timeout")
    func slowAnswerIsRead() async throws {
        let router = Router()
        router.get("/slow") { _, _ -> String in
            try await Task.sleep(for: .seconds(21))
            return "late but fine"
        }
        let answer = try await Application(router: router).live { client in
            try await client.execute(uri: "/slow", method: .get)
        }
        #expect(answer.status == .ok)
        #expect(String(buffer: answer.body) == "late but fine")
    }

    @Test("the semaphore lets at most its capacity through at once, and every waiter through in the end")
    func semaphoreBounds() async {
        let semaphore = CountingSemaphore(3)
        let inside = Occupancy()
        await withDiscardingTaskGroup { group in
            for _ in 0..<24 {
                group.addTask {
                    await semaphore.wait()
                    inside.counts.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                    try? await Task.sleep(for: .milliseconds(20))
                    inside.counts.withLock { $0.now -= 1; $0.done += 1 }
                    semaphore.signal()
                }
            }
        }
        let counts = inside.counts.withLock { $0 }
        #expect(counts.most == 3 && counts.done == 24, "\(counts)")
        #expect(semaphore.inUse == 0)
    }

    @Test("a live daemon holds a slot while it runs; one nested in it takes no second (no deadlock at capacity)")
    func liveDaemonHoldsASlot() async throws {
        #expect(!TestSlots.isHeld)
        let router = Router()
        router.get("/") { _, _ in "ok" }
        let nested = try await Application(router: router).live { outer in
            #expect(TestSlots.isHeld)
            // More nested daemons than slots: each would wait forever for a slot of its own.
            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<(TestSlots.capacity + 1) {
                statuses.append(try await Application(router: router).live { inner in try await inner.execute(uri: "/", method: .get).status })
            }
            statuses.append(try await outer.execute(uri: "/", method: .get).status)
            return statuses
        }
        #expect(nested.count == TestSlots.capacity + 2 && nested.allSatisfy { $0 == .ok })
        #expect(!TestSlots.isHeld)
    }

    @Test("a test marked .heavy holds a slot", .heavy)
    func heavyHoldsASlot() {
        #expect(TestSlots.isHeld)
    }
}

/// How many tasks are inside a section now, the most at once, and how many have left it.
private final class Occupancy: Sendable {
    let counts = Mutex((now: 0, most: 0, done: 0))
}
