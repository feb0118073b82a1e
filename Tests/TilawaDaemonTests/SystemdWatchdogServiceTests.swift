import Logging
import ServiceLifecycle
import Synchronization
import Testing
import TilawaTestSupport
@testable import TilawaDaemon

@Suite("WatchdogService")
struct SystemdWatchdogServiceTests {
    static let logger = Logger(label: "tilawa.test.watchdog") { _ in SwiftLogNoOpLogHandler() }

    @Test("pings WATCHDOG=1 again and again, and returns at graceful shutdown", .timeLimit(.minutes(1)))
    func pingsUntilGracefulShutdown() async throws {
        let socket = try SystemdTestSocket(address: abstractTestAddress())
        let service = WatchdogService(
            notifier: SystemdNotifier(socketPath: socket.address), interval: .milliseconds(10), logger: Self.logger)
        #expect(service.isEnabled)
        try await runGroup([service]) {
            for _ in 0..<3 {
                let ping = try await socket.receive()
                #expect(ping == "WATCHDOG=1")
            }
        }
        // The group returned without error, so the service ended on graceful shutdown; what
        // it sent before that is pings and nothing else.
        #expect(try socket.drain().allSatisfy { $0 == "WATCHDOG=1" })
    }

    @Test("sends nothing while the health probe fails", .timeLimit(.minutes(1)))
    func silentWhileUnhealthy() async throws {
        let socket = try SystemdTestSocket(address: abstractTestAddress())
        let probe = ScriptedProbe(failures: .max)
        let service = WatchdogService(
            notifier: SystemdNotifier(socketPath: socket.address), interval: .milliseconds(10), logger: Self.logger,
            isHealthy: { probe.answer() })
        try await runGroup([service]) {
            try await probe.waitForCalls(4)
        }
        // Datagrams on a local socket are queued before sendto returns, and the service has
        // ended: an empty queue means no ping was ever sent.
        #expect(try socket.drain() == [])
    }

    @Test("pings resume once the health probe passes again", .timeLimit(.minutes(1)))
    func resumesWhenHealthy() async throws {
        let socket = try SystemdTestSocket(address: abstractTestAddress())
        let probe = ScriptedProbe(failures: 3)
        let service = WatchdogService(
            notifier: SystemdNotifier(socketPath: socket.address), interval: .milliseconds(10), logger: Self.logger,
            isHealthy: { probe.answer() })
        try await runGroup([service]) {
            let first = try await socket.receive()
            #expect(first == "WATCHDOG=1")
            #expect(probe.calls >= 4)
            let second = try await socket.receive()
            #expect(second == "WATCHDOG=1")
        }
    }

    @Test("a ping that cannot be delivered is logged, not fatal", .timeLimit(.minutes(1)))
    func failedPingKeepsRunning() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let probe = ScriptedProbe(failures: 0)
        let service = WatchdogService(
            notifier: SystemdNotifier(socketPath: scratch.path("nobody-listens")), interval: .milliseconds(10),
            logger: Self.logger, isHealthy: { probe.answer() })
        // Had a failed ping thrown or returned, the group would end early and runGroup would fail.
        try await runGroup([service]) {
            try await probe.waitForCalls(4)
        }
    }

    @Test("a disabled watchdog sends nothing and stays up until graceful shutdown", .timeLimit(.minutes(1)),
          arguments: [(false, false), (true, false), (false, true)])
    func disabledStaysUp(hasSocket: Bool, hasInterval: Bool) async throws {
        let quiet = try SystemdTestSocket(address: abstractTestAddress())
        var environment: [String: String] = [:]
        if hasSocket { environment["NOTIFY_SOCKET"] = quiet.address }
        if hasInterval { environment["WATCHDOG_USEC"] = "20000" }
        let disabled = WatchdogService(environment: environment, logger: Self.logger)
        #expect(!disabled.isEnabled)

        // An enabled watchdog beside it shows time passing; had the disabled one returned at
        // start, the group would have ended with serviceFinishedUnexpectedly.
        let beat = try SystemdTestSocket(address: abstractTestAddress())
        let beacon = WatchdogService(
            notifier: SystemdNotifier(socketPath: beat.address), interval: .milliseconds(10), logger: Self.logger)
        try await runGroup([disabled, beacon]) {
            for _ in 0..<3 {
                let ping = try await beat.receive()
                #expect(ping == "WATCHDOG=1")
            }
        }
        #expect(try quiet.drain() == [])
    }

    @Test("the service reads systemd's variables")
    func fromEnvironment() {
        let service = WatchdogService(
            environment: ["NOTIFY_SOCKET": "@tilawa-notify", "WATCHDOG_USEC": "30000000"], logger: Self.logger)
        #expect(service.isEnabled)
        #expect(service.notifier?.socketPath == "@tilawa-notify")
        #expect(service.interval == .seconds(15))
    }

    /// Runs `services` in a ServiceGroup and `body` while they are up, then shuts the group
    /// down gracefully and waits for it to return.
    ///
    /// Fails when the group ends before `body` is done (a service returned or threw early) or
    /// throws on the way down. The tests' time limit bounds a group that never returns.
    private func runGroup(_ services: [any Service], while body: @escaping @Sendable () async throws -> Void) async throws {
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: services, logger: Self.logger))
        enum Finished { case body, group }
        try await withThrowingTaskGroup(of: Finished.self) { tasks in
            tasks.addTask { try await group.run(); return .group }
            tasks.addTask { try await body(); return .body }
            let first = try await tasks.next()
            guard first == .body else {
                Issue.record("the service group ended before it was asked to shut down")
                tasks.cancelAll()
                return
            }
            await group.triggerGracefulShutdown()
            _ = try await tasks.next()
        }
    }
}

/// A health probe that fails its first `failures` calls and passes after, counting calls.
private final class ScriptedProbe: Sendable {
    private let failures: Int
    private let count = Mutex(0)

    init(failures: Int) {
        self.failures = failures
    }

    var calls: Int { count.withLock { $0 } }

    func answer() -> Bool {
        count.withLock { calls in
            calls += 1
            return calls > failures
        }
    }

    /// Waits until the probe has been asked `target` times (bounded, so a broken test ends;
    /// wide, because CPU-bound tests beside it can hold both cooperative threads for seconds).
    func waitForCalls(_ target: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while calls < target {
            guard ContinuousClock.now < deadline else {
                Issue.record("the probe was asked \(calls) times, not \(target)")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
