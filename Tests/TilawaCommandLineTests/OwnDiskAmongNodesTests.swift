import Foundation
import Testing
import TilawaTestSupport

/// Several nodes on one PostgreSQL database need one artifact store (DESIGN §13): a node with
/// artifacts on its own disk (`artifacts.url: file:`) would hold recordings the others cannot
/// read, so it does not start while another host's node is alive on that database.
@Suite("A node with artifacts on its own disk among others on one PostgreSQL database", .enabled(if: PostgresTestServer.isRequested))
struct OwnDiskAmongNodesTests {
    @Test("another host's node seen a moment ago: start-up refused, exit 78, one line naming artifacts.url; seen an hour ago, or only this host's: it starts")
    func refused() async throws {
        let state = try await CommandLineStateFixture(importSamples: true, engine: .postgres)
        defer { state.remove() }
        func seen(_ id: String, secondsAgo: Double) throws {
            try state.write { db in
                try db.execute(sql: "DELETE FROM node")
                let instant = Date().addingTimeInterval(-secondsAgo)
                try db.execute(sql: "INSERT INTO node (id, startedAt, seenAt) VALUES (?, ?, ?)", arguments: [id, instant, instant])
            }
        }
        try seen("4242@another-host.example", secondsAgo: 2)
        let refused = try await runProcess(tilawaBinary, ["serve"], environment: state.environment.merging([
            "TILAWA_STATE_DIR": state.stateDirectory, "TILAWA_HTTP_PORT": "\(try unusedPort())",
        ]) { $1 }, directory: state.scratch.path, timeout: TestTime.hangInterval)
        #expect(refused.status == 78, "\(refused.stderr)")
        #expect(refused.stderr.hasPrefix("tilawa: bad_configuration: artifacts.url: is file: (this node's own disk) while node 4242@another-host.example"))
        #expect(refused.stderr.split(separator: "\n").count == 1)

        // The same, with artifacts in a directory every node mounts (file:///path): it starts.
        try FileManager.default.createDirectory(atPath: state.scratch.path("shared"), withIntermediateDirectories: true)
        let shared = try ServeProcess(state: state, port: try unusedPort(),
                                      environment: ["TILAWA_ARTIFACTS_URL": "file://" + state.scratch.path("shared")])
        let sharedReady = await shared.waitUntilReady()
        _ = await shared.terminate()
        #expect(sharedReady, "a shared directory among nodes: \(shared.log)")

        // A node gone for an hour, or one of this host (a restart): the daemon starts.
        for (id, ago) in [("4242@another-host.example", 3_600.0), ("4242@\(ProcessInfo.processInfo.hostName)", 2)] {
            try seen(id, secondsAgo: ago)
            let daemon = try ServeProcess(state: state, port: try unusedPort())
            let ready = await daemon.waitUntilReady()
            _ = await daemon.terminate()
            #expect(ready, "\(id) seen \(ago) s ago: \(daemon.log)")
        }
    }
}
