import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TilawaDaemon
import TilawaTestSupport
@_spi(Testing) import TilawaStore

/// Mutated fixtures (`FixtureMutator`) sent to the upload route of a live daemon: every one is
/// answered with an acceptance or an audio reason, nothing else, and the daemon stays whole.
///
/// `make test` sends 96; `make soak` sends `FUZZ_UPLOAD_CASES` (1,000).
@Suite("Fuzzing the upload route with mutated fixtures")
struct UploadFuzzTests {
    static let audioCodes: Set<String> = ["empty", "unreadable", "unsupported_format", "too_short", "too_long", "silent", "too_quiet"]

    static var caseCount: Int {
        ProcessInfo.processInfo.environment["FUZZ_UPLOAD_CASES"].flatMap(Int.init) ?? 96
    }

    @Test("Every mutated upload is 201, or 415/422 with an audio reason; no 5xx, nothing left in staging, the daemon still healthy")
    func mutatedUploads() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let (failures, accepted) = try await daemon.application().live { client in
            var failures: [String] = []
            var accepted = 0
            // The placement assessment uses no attempt, so one student can send every case.
            let headers = try await daemon.headers(.student, "S1001", [.contentType: "application/octet-stream"])
            for index in 0..<Self.caseCount {
                let (name, data) = try FixtureMutator.mutate(index)
                let response = try await client.execute(uri: "/v1/students/S1001/weeks/assessment/submissions", method: .post,
                                                        headers: headers, body: ByteBuffer(bytes: data))
                let code = response.json?["code"] as? String
                switch response.status {
                case .created:
                    accepted += 1
                case .unsupportedMediaType where code == "unsupported_format":
                    break
                case .unprocessableContent where code.map(Self.audioCodes.contains) == true:
                    #expect(response.headers[.contentType] == "application/problem+json", "\(name)")
                default:
                    failures.append("\(name): \(response.status.code) \(String(buffer: response.body).prefix(200))")
                }
            }
            let health = try await client.execute(uri: "/healthz", method: .get)
            #expect(health.status == .ok)
            // Every accepted case is encoded or, if its audio defeats the encoder, failed with its attempt returned.
            #expect(await daemon.eventually {
                try daemon.runtime.database.engine.read { db in
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM job WHERE state IN ('queued', 'running')")
                } == 0
            })
            return (failures, accepted)
        }
        #expect(failures.isEmpty, "\(failures.prefix(20))")
        // Some mutations must survive as audio, or the route was never really exercised.
        #expect(accepted > 0 && accepted < Self.caseCount, "\(accepted) of \(Self.caseCount) accepted")
        #expect(daemon.stagingFiles().isEmpty)
    }
}
