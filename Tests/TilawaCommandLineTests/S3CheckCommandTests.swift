import Foundation
import Testing
import TilawaS3
import TilawaTestSupport

/// `tilawa s3 check` and the `artifacts.url` / `s3.*` keys through the binary, against a real
/// store that checks signatures (`S3TestServer`).
@Suite("tilawa s3 check: the configured store, step by step, with a reason an operator can act on", .heavy)
struct S3CheckCommandTests {
    @Test("Ready: write, read back whole and a range, list, remove; then a wrong secret (77), no bucket (78), no store (69)")
    func check() async throws {
        let state = try await CommandLineStateFixture(importSamples: false)
        defer { state.remove() }
        let server = try await S3TestServer.shared()
        let bucket = S3TestServer.uniqueBucket("tilawa-artifacts")
        try await S3Client(endpoint: server.endpoint, credentials: S3Credentials(accessKey: server.accessKey, secretKey: server.secretKey),
                           region: server.region).createBucket(bucket)
        try (server.accessKey + "\n").write(toFile: state.scratch.path("s3-access"), atomically: true, encoding: .utf8)
        try (server.secretKey + "\n").write(toFile: state.scratch.path("s3-secret"), atomically: true, encoding: .utf8)
        var environment = [
            "TILAWA_ARTIFACTS_URL": "s3://\(bucket)/prod", "TILAWA_S3_ENDPOINT": server.endpoint.absoluteString,
            "TILAWA_S3_ACCESS_KEY_FILE": "s3-access", "TILAWA_S3_SECRET_KEY_FILE": "s3-secret",
        ]
        let ready = try await state.run(["s3", "check"], environment: environment)
        #expect(ready.status == 0 && ready.stdout.contains("is ready") && ready.stdout.components(separatedBy: "ok   ").count == 5,
                "\(ready.stdout)\(ready.stderr)")
        let left = try await S3Client(endpoint: server.endpoint, credentials: S3Credentials(accessKey: server.accessKey, secretKey: server.secretKey),
                                      region: server.region).listObjects(bucket: bucket, prefix: "")
        #expect(left.objects.isEmpty, "the probe is removed: \(left.objects)")

        try "wrong\n".write(toFile: state.scratch.path("s3-wrong"), atomically: true, encoding: .utf8)
        var wrong = environment
        wrong["TILAWA_S3_SECRET_KEY_FILE"] = "s3-wrong"
        let refused = try await state.run(["s3", "check"], environment: wrong)
        #expect(refused.status == 77 && refused.stderr.contains("s3_write_failed") && refused.stderr.contains("does not belong to the access key"),
                "\(refused.stderr)")

        var noBucket = environment
        noBucket["TILAWA_ARTIFACTS_URL"] = "s3://no-such-bucket"
        let missing = try await state.run(["s3", "check"], environment: noBucket)
        #expect(missing.status == 78 && missing.stderr.contains("has no bucket no-such-bucket"), "\(missing.stderr)")

        environment["TILAWA_S3_ENDPOINT"] = "http://127.0.0.1:\(try unusedPort())"
        let unreachable = try await state.run(["s3", "check"], environment: environment)
        #expect(unreachable.status == 69 && unreachable.stderr.contains("cannot be reached"), "\(unreachable.stderr)")
    }

    @Test("Configuration: a bad artifacts.url or endpoint, a missing key file setting, an unreadable key file — 78 with the key named",
          arguments: [
            (["TILAWA_ARTIFACTS_URL": "s3://Bad_Bucket/x"], "artifacts.url"),
            (["TILAWA_ARTIFACTS_URL": "s3://bucket/../x"], "artifacts.url"),
            (["TILAWA_ARTIFACTS_URL": "ftp://bucket"], "artifacts.url"),
            (["TILAWA_ARTIFACTS_URL": "s3://bucket", "TILAWA_S3_ENDPOINT": "http://s3.example.org/path",
              "TILAWA_S3_ACCESS_KEY_FILE": "a", "TILAWA_S3_SECRET_KEY_FILE": "b"], "s3.endpoint"),
            (["TILAWA_ARTIFACTS_URL": "s3://bucket", "TILAWA_S3_ENDPOINT": "http://127.0.0.1:9", "TILAWA_S3_ACCESS_KEY_FILE": "a"], "s3.secret_key_file"),
            (["TILAWA_ARTIFACTS_URL": "s3://bucket", "TILAWA_S3_ENDPOINT": "http://127.0.0.1:9",
              "TILAWA_S3_ACCESS_KEY_FILE": "absent", "TILAWA_S3_SECRET_KEY_FILE": "absent"], "cannot read the S3 access key"),
            ([:], "not an s3:// location"),
          ])
    func configuration(_ environment: [String: String], _ named: String) async throws {
        let state = try await CommandLineStateFixture(importSamples: false)
        defer { state.remove() }
        let result = try await state.run(["s3", "check"], environment: environment)
        #expect(result.status == 78 && result.stderr.contains(named), "\(environment): \(result.stderr)")
    }
}
