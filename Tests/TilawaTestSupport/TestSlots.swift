import Foundation
import Synchronization
import Testing

/// How many heavy parts of the suite run at once: live daemons, daemons and commands run as
/// processes, browsers, encodes. Swift Testing starts every test at once; unbounded, a 2-core
/// box ran some 70 test daemons, Chromium, the S3 servers and CLI children together (load 29)
/// and requests waited minutes for a core. A test takes a slot for as long as its heavy part
/// runs, and waits for one when all are taken; light tests (pure rules, one SQLite file) never
/// wait.
///
/// A slot is held per task tree: a test that already holds one (a suite marked `.heavy`, or a
/// live daemon started inside another) takes no second one, so nesting never deadlocks.
public enum TestSlots {
    /// `TILAWA_TEST_SLOTS`, or two per core the machine has (at least two).
    public static let capacity: Int = {
        if let text = ProcessInfo.processInfo.environment["TILAWA_TEST_SLOTS"], let value = Int(text), value > 0 { return value }
        return max(2, 2 * ProcessInfo.processInfo.activeProcessorCount)
    }()

    @TaskLocal static var held = false

    static let semaphore = CountingSemaphore(capacity)

    /// Runs `body` holding a slot, taken now or already held by this task tree.
    public static func withSlot<T>(_ body: () async throws -> T) async rethrows -> T {
        if held { return try await body() }
        await semaphore.wait()
        defer { semaphore.signal() }
        return try await $held.withValue(true) { try await body() }
    }

    /// Whether this task tree holds a slot.
    public static var isHeld: Bool { held }
}

/// A counting semaphore for async code: `wait()` suspends (never blocks a thread) until a
/// permit is free; `signal()` gives one back to the longest waiter.
public final class CountingSemaphore: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>
    private let capacity: Int

    public init(_ capacity: Int) {
        self.capacity = capacity
        state = Mutex(State(free: capacity))
    }

    public func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state -> Bool in
                if state.free > 0 {
                    state.free -= 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    public func signal() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }

    public var inUse: Int { state.withLock { capacity - $0.free } }
}

/// A suite or test whose every test case holds a slot of `TestSlots` while it runs: for tests
/// whose heavy part is not a live daemon (which takes its slot itself): `tilawa` run as a
/// process, Chromium, the S3 and PostgreSQL servers, encodes.
public struct HeavyTrait: TestTrait, SuiteTrait, TestScoping {
    /// Each test case of a marked suite takes its own slot, not the suite as a whole.
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        try await TestSlots.withSlot { try await function() }
    }
}

extension TestTrait where Self == HeavyTrait {
    /// Holds a slot of `TestSlots` for each test case (see `HeavyTrait`).
    public static var heavy: Self { HeavyTrait() }
}

extension SuiteTrait where Self == HeavyTrait {
    /// Holds a slot of `TestSlots` for each test case of the suite (see `HeavyTrait`).
    public static var heavy: Self { HeavyTrait() }
}
