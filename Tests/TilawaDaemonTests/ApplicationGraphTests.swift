import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization
import Testing
import TilawaCore
@testable import TilawaDaemon
import TilawaStore
import TilawaTestSupport

/// The daemon exactly as `tilawa serve` wires it (`TilawaApplication`), run in-process.
@Suite("The whole service graph, in-process")
struct ApplicationGraphTests {
    @Test("An upload through the real graph is encoded, and its event reaches the webhook signed")
    func uploadEncodedAndDelivered() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let clock = TestClock(TestDaemon.midSemester)
        let receiver = WebhookReceiver(now: { clock.now })
        try await receiver.serve { url in
            var configuration = TilawaConfiguration(stateDirectory: scratch.path("var"), workingDirectory: scratch.path)
            configuration.http.port = 0
            configuration.storage.minFreeBytes = 0
            let secret = scratch.path("webhook.secret")
            try Data(webhookSecret + [0x0A]).write(to: URL(fileURLWithPath: secret))
            configuration.webhook.url = url
            configuration.webhook.secretFile = secret
            let port = Mutex<Int?>(nil)
            let application = try await TilawaApplication(configuration: configuration, environment: [:], logger: quietLogger,
                                                          clock: { clock.now }, onListening: { _, bound in port.withLock { $0 = bound } })
            let program = try ProgramFile.parse(
                try String(contentsOfFile: packageRoot.appendingPathComponent("config/program.yaml").path, encoding: .utf8), source: "program.yaml")
            let students = try StudentsCSV.parse(
                try String(contentsOfFile: packageRoot.appendingPathComponent("config/students.csv").path, encoding: .utf8), source: "students.csv")
            _ = try application.runtime.database.importRoster(program: program, students: students, studentsSource: "students.csv", now: clock.now)

            let group = application.serviceGroup()
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                defer { Task { await group.triggerGracefulShutdown() } }
                #expect(await eventually { port.withLock { $0 } != nil })
                let bound = try #require(port.withLock { $0 })
                let token = try await application.api.authority.issue(subject: "S1001", role: .student, ttl: 3_600, now: clock.now)
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(bound)/v1/students/S1001/weeks/12/submissions")
                request.method = .POST
                request.headers.add(name: "Authorization", value: "Bearer \(token)")
                request.headers.add(name: "Content-Type", value: "audio/ogg")
                request.body = .bytes(ByteBuffer(bytes: try Data(contentsOf: fixturesDirectory.appendingPathComponent("speech.opus"))))
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
                #expect(response.status.code == 201)
                let body = try await response.body.collect(upTo: 1 << 20)
                let id = try #require((try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any])?["id"] as? String)

                #expect(await eventually { try application.runtime.database.submission(id: id)?.state == .awaitingFeedback })
                #expect(await eventually {
                    receiver.calls.contains { $0.eventType == "submission_received" && $0.signatureError == nil && $0.studentId == "S1001" }
                })
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
        }
    }
}
