import Foundation
import Testing
import TilawaTestSupport
@testable import TilawaDaemon

@Suite("SystemdNotifier")
struct SystemdNotifierTests {
    @Test("no notifier without $NOTIFY_SOCKET", arguments: [
        [:],
        ["NOTIFY_SOCKET": ""],
        ["WATCHDOG_USEC": "30000000"],
    ] as [[String: String]])
    func absentSocket(environment: [String: String]) {
        #expect(SystemdNotifier(environment: environment) == nil)
    }

    @Test("messages arrive whole and exact on a socket in the file system")
    func pathSocket() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let socket = try SystemdTestSocket(address: scratch.path("notify"))
        let notifier = try #require(SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.address]))
        #expect(notifier.socketPath == socket.address)
        try await expectConversation(notifier, socket)
    }

    @Test("messages arrive whole and exact on a socket in the abstract namespace")
    func abstractSocket() async throws {
        let socket = try SystemdTestSocket(address: abstractTestAddress())
        let notifier = try #require(SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.address]))
        try await expectConversation(notifier, socket)
    }

    private func expectConversation(_ notifier: SystemdNotifier, _ socket: SystemdTestSocket) async throws {
        try notifier.ready()
        #expect(try await socket.receive() == "READY=1")
        try notifier.ready(status: "serving on 127.0.0.1:8080")
        #expect(try await socket.receive() == "READY=1\nSTATUS=serving on 127.0.0.1:8080")
        try notifier.watchdog()
        #expect(try await socket.receive() == "WATCHDOG=1")
        try notifier.status("draining\n2 uploads left")
        #expect(try await socket.receive() == "STATUS=draining 2 uploads left")
        try notifier.notify("STATUS=Re-executing\nMAINPID=4242\nREADY=1")
        #expect(try await socket.receive() == "STATUS=Re-executing\nMAINPID=4242\nREADY=1")
        try notifier.notify("STATUS=قراءة — ready")
        #expect(try await socket.receive() == "STATUS=قراءة — ready")
        try notifier.stopping()
        #expect(try await socket.receive() == "STOPPING=1")
        #expect(try socket.drain().isEmpty)
    }

    @Test("a path may fill sun_path but for its NUL; one byte more is refused")
    func longestPath() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.path + "/"
        let longest = directory + String(repeating: "s", count: 107 - directory.utf8.count)
        #expect(longest.utf8.count == 107)
        let socket = try SystemdTestSocket(address: longest)
        try SystemdNotifier(socketPath: longest).ready()
        #expect(try await socket.receive() == "READY=1")

        let tooLong = longest + "s"
        #expect(throws: SystemdNotificationError.addressTooLong(tooLong, limit: 107)) {
            try SystemdNotifier(socketPath: tooLong).ready()
        }
    }

    @Test("an abstract name may fill sun_path; one byte more is refused")
    func longestAbstractName() async throws {
        let prefix = abstractTestAddress() + "-"
        let longest = prefix + String(repeating: "a", count: 108 - prefix.utf8.count)
        #expect(longest.utf8.count == 108)
        let socket = try SystemdTestSocket(address: longest)
        try SystemdNotifier(socketPath: longest).ready()
        #expect(try await socket.receive() == "READY=1")

        let tooLong = longest + "a"
        #expect(throws: SystemdNotificationError.addressTooLong(tooLong, limit: 108)) {
            try SystemdNotifier(socketPath: tooLong).ready()
        }
    }

    @Test("addresses other than an absolute path or @name are refused", arguments: [
        "run/systemd/notify", "vsock:2:1234", "/run/\u{0}notify",
    ])
    func unsupportedAddress(address: String) {
        #expect(throws: SystemdNotificationError.unsupportedAddress(address)) {
            try SystemdNotifier(socketPath: address).ready()
        }
    }

    @Test("nobody listening is an error naming the socket; an empty message is refused")
    func sendFailures() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let missing = scratch.path("nobody")
        #expect(throws: SystemdNotificationError.sendFailed(socketPath: missing, errno: ENOENT)) {
            try SystemdNotifier(socketPath: missing).watchdog()
        }
        #expect(throws: SystemdNotificationError.sendFailed(socketPath: "@" + missing, errno: ECONNREFUSED)) {
            try SystemdNotifier(socketPath: "@" + missing).watchdog()
        }
        let error = #expect(throws: SystemdNotificationError.self) {
            try SystemdNotifier(socketPath: missing).status("x")
        }
        #expect(error?.code == "send_failed")
        #expect(error?.description.contains(missing) == true)
        #expect(throws: SystemdNotificationError.emptyMessage) {
            try SystemdNotifier(socketPath: missing).notify("")
        }
    }

    @Test("the watchdog pings at half $WATCHDOG_USEC, only for the process $WATCHDOG_PID names", arguments: [
        (["WATCHDOG_USEC": "30000000"], .seconds(15)),
        (["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "4242"], .seconds(15)),
        (["WATCHDOG_USEC": "1"], .nanoseconds(500)),
        (["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "4243"], nil),
        (["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": ""], nil),
        (["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "main"], nil),
        (["WATCHDOG_USEC": "garbage"], nil),
        (["WATCHDOG_USEC": "30s"], nil),
        (["WATCHDOG_USEC": ""], nil),
        (["WATCHDOG_USEC": "0"], nil),
        (["WATCHDOG_USEC": "-30000000"], nil),
        (["WATCHDOG_USEC": "99999999999999999999"], nil),
        (["WATCHDOG_PID": "4242"], nil),
        ([:], nil),
    ] as [([String: String], Duration?)])
    func watchdogInterval(environment: [String: String], expected: Duration?) {
        #expect(SystemdNotifier.watchdogInterval(environment: environment, processID: 4242) == expected)
    }

    @Test("by default $WATCHDOG_PID is compared with this process's id")
    func watchdogIntervalForThisProcess() {
        let own = ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(getpid())"]
        #expect(SystemdNotifier.watchdogInterval(environment: own) == .seconds(15))
        let parents = ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(getppid())"]
        #expect(SystemdNotifier.watchdogInterval(environment: parents) == nil)
    }
}
