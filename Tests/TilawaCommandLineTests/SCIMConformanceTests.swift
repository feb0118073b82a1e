import Foundation
import Testing
import TilawaTestSupport

/// The SCIM service provider as a conformance checker sees it (issue 46): `tilawa serve` with
/// `scim.token_file`, and PyPI's scim2-tester run against it (`Tests/scim/conformance.py`, from
/// the test virtual environment).
@Suite("SCIM conformance: scim2-tester against a running daemon", .heavy)
struct SCIMConformanceTests {
    @Test("""
        every check of scim2-tester passes or is skipped — discovery (ServiceProviderConfig, ResourceTypes, Schemas, 405s and \
        404s), User create, read, list, attributes, replace, delete, and PATCH add, remove and replace of each attribute — none \
        is an ERROR
        """)
    func conformance() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let token = "conformance-" + String(repeating: "0123456789", count: 4)
        let tokenFile = state.scratch.path("scim.token")
        try (token + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let daemon = try ServeProcess(state: state, port: try unusedPort(),
                                      environment: DaemonProcessTests.clock.merging(["TILAWA_SCIM_TOKEN_FILE": tokenFile]) { $1 })
        defer { daemon.process.signal(SIGKILL) }
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        let result = try await runProcess(packageRoot.appendingPathComponent(".venv-test/bin/python").path,
                                          [packageRoot.appendingPathComponent("Tests/scim/conformance.py").path,
                                           "http://127.0.0.1:\(daemon.port)/scim/v2", token],
                                          timeout: TestTime.hangInterval)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)\n\(daemon.log.suffix(3000))")
        // Which checks ran, and passed: each of these names at least one SUCCESS line.
        for check in ["service_provider_config_endpoint", "query_all_resource_types", "access_schema_by_id", "schemas_endpoint_methods",
                      "random_url", "object_creation", "object_query_without_id", "object_query_with_attributes", "object_replacement",
                      "object_deletion", "check_add_attribute", "check_remove_attribute", "check_replace_attribute"] {
            #expect(result.stdout.contains("SUCCESS    \(check) "), "\(check) did not pass:\n\(result.stdout)")
        }
        #expect(!result.stdout.contains("ERROR ") && !result.stdout.contains("CRITICAL "), "\(result.stdout)")
        #expect(await daemon.terminate() == 0)
    }

    @Test("a token file too short to be a SCIM token stops start-up with exit 78 naming scim.token_file")
    func shortTokenRefused() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let tokenFile = state.scratch.path("scim.token")
        try "too-short\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let daemon = try ServeProcess(state: state, port: try unusedPort(), environment: ["TILAWA_SCIM_TOKEN_FILE": tokenFile])
        defer { daemon.process.signal(SIGKILL) }
        let deadline = ContinuousClock.now + TestTime.hangLimit
        while daemon.process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!daemon.process.isRunning && daemon.process.terminationStatus == 78, "\(daemon.log)")
        #expect(daemon.log.contains("scim.token_file"), "\(daemon.log)")
    }
}
