import Foundation
import Testing
import TilawaTestSupport

/// `systemd/tilawa.service`: what DESIGN §7 asks of it, and what `systemd-analyze verify` says.
@Suite("systemd unit")
struct SystemdUnitTests {
    static let unitPath = packageRoot.appendingPathComponent("systemd/tilawa.service").path
    static let systemdAnalyze = "/usr/bin/systemd-analyze"

    /// The unit's `Key=value` lines, comments and sections aside.
    static func settings() throws -> [(key: String, value: String)] {
        try String(contentsOfFile: unitPath, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#"), !line.hasPrefix("["), let equals = line.firstIndex(of: "=") else { return nil }
            return (String(line[..<equals]), String(line[line.index(after: equals)...]))
        }
    }

    @Test("notify type with a watchdog, a state directory, credentials and the hardening set")
    func contract() throws {
        let settings = try Self.settings()
        func values(_ key: String) -> [String] { settings.filter { $0.key == key }.map(\.value) }
        #expect(values("Type") == ["notify"])
        #expect(values("WatchdogSec").count == 1)
        #expect(values("StateDirectory") == ["tilawa"])
        #expect(Set(values("LoadCredential").map { $0.split(separator: ":").first.map(String.init) ?? "" }) == ["jwt.key", "webhook.secret"])
        #expect(values("RestartPreventExitStatus") == ["78"], "a bad configuration is not restarted in a loop")
        for key in ["ProtectSystem", "NoNewPrivileges", "PrivateTmp", "ProtectHome", "RestrictAddressFamilies"] {
            #expect(values(key).count == 1, "\(key)")
        }
        #expect(values("ProtectSystem") == ["strict"])
    }

    @Test("ProtectSystem=strict leaves only the state directory writable: the unit shows the ReadWritePaths= a drop folder or a backup directory elsewhere needs")
    func writablePathsShown() throws {
        let text = try String(contentsOfFile: Self.unitPath, encoding: .utf8)
        let shown = text.split(separator: "\n").filter { $0.hasPrefix("#ReadWritePaths=") }.map { String($0.dropFirst("#ReadWritePaths=".count)) }
        #expect(shown.contains { $0.hasSuffix("/dropbox") } && shown.contains { $0.hasSuffix("/backups") }, "\(shown)")
        #expect(text.contains("backup.dir") && text.contains("dropbox.path"))
        #expect(try Self.settings().filter { $0.key == "ReadWritePaths" }.isEmpty, "none is opened by default")
    }

    @Test("the system-call filter lets the encode workers lower their own priority (setpriority is in @resources)")
    func setpriorityAllowed() throws {
        let denied = try Self.settings().filter { $0.key == "SystemCallFilter" && $0.value.hasPrefix("~") }
            .flatMap { $0.value.dropFirst().split(separator: " ").map(String.init) }
        #expect(!denied.contains("@resources"))
        #expect(!denied.contains("setpriority"))
    }

    @Test("systemd-analyze verify finds nothing to say", .enabled(if: FileManager.default.isExecutableFile(atPath: systemdAnalyze)))
    func verify() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // The unit as installed, but starting the binary just built (verify checks ExecStart exists).
        let unit = try String(contentsOfFile: Self.unitPath, encoding: .utf8)
            .replacingOccurrences(of: "ExecStart=/usr/local/bin/tilawa ", with: "ExecStart=\(tilawaBinary) ")
        try #require(unit.contains("ExecStart=\(tilawaBinary) "))
        let path = scratch.path("tilawa.service")
        try unit.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try await runProcess(Self.systemdAnalyze, ["verify", path], timeout: TestTime.hangInterval)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").filter { $0.contains("tilawa.service") }.isEmpty, "\(result.stderr)")
    }
}
