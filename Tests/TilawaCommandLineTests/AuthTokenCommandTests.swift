import Foundation
import Testing
import TilawaTestSupport
@testable import TilawaDaemon

@Suite("tilawa token issue", .heavy)
struct AuthTokenCommandTests {
    /// A scratch working directory (no config/tilawa.yaml) with its state directory in `var/`.
    struct Workspace {
        let scratch: ScratchDirectory
        var stateDirectory: String { scratch.path("var") }

        init() throws { scratch = try ScratchDirectory() }

        func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> ProcessResult {
            var env = environment
            env["TILAWA_STATE_DIR"] = stateDirectory
            return try await runProcess(tilawaBinary, ["token", "issue"] + arguments, environment: env, directory: scratch.path)
        }

        /// The principal `token` verifies to with the key file the command used, and its lifetime.
        func verify(_ token: String, environment: [String: String] = [:]) async throws -> (Principal, Int) {
            var env = environment
            env["TILAWA_STATE_DIR"] = stateDirectory
            let config = try TilawaConfiguration.load(file: nil, environment: env, workingDirectory: scratch.path)
            let authority = try await TokenAuthority(key: try config.readJWTKey())
            let claims = try payload(of: token)
            let issuedAt = try #require(claims["iat"] as? Int)
            // Verified as of its issue: on a loaded machine the CLI may take longer to return
            // than a 60-s token lives (seen once), and expiry is not what these tests check.
            let principal = try await authority.verify(token, now: Date(timeIntervalSince1970: TimeInterval(issuedAt)))
            let lifetime = try #require(claims["exp"] as? Int) - issuedAt
            return (principal, lifetime)
        }

        func remove() { scratch.remove() }
    }

    @Test("Prints only the token, which verifies with the key file it created")
    func student() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let result = try await workspace.run(["--student", "S1001"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.hasSuffix("\n"))
        let token = String(result.stdout.dropLast())
        #expect(token.split(separator: ".").count == 3 && !token.contains(where: \.isWhitespace))
        let (principal, lifetime) = try await workspace.verify(token)
        #expect(principal == Principal(subject: "S1001", role: .student))
        #expect(lifetime == 3600, "auth.default_token_ttl_seconds")

        let keyFile = workspace.stateDirectory + "/secrets/jwt.key"
        let attributes = try FileManager.default.attributesOfItem(atPath: keyFile)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        #expect(attributes[.size] as? Int == 65)

        // A second run reuses the key: the first token still verifies after it.
        #expect(try await workspace.run(["--coach", "C01"]).status == 0)
        #expect(try await workspace.verify(token).0.subject == "S1001")
    }

    struct Issue: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let subject: String
        let role: Role
        let lifetime: Int
        var testDescription: String { arguments.joined(separator: " ") }
    }

    @Test("Roles and lifetimes", arguments: [
        Issue(arguments: ["--coach", "C01", "--ttl", "15m"], subject: "C01", role: .coach, lifetime: 900),
        Issue(arguments: ["--ops", "amina", "--ttl", "7d"], subject: "amina", role: .ops, lifetime: 604_800),
        Issue(arguments: ["--ttl", "90s", "--student", "S-9_x"], subject: "S-9_x", role: .student, lifetime: 90),
        Issue(arguments: ["--student", "S1001", "--ttl", "1h"], subject: "S1001", role: .student, lifetime: 3600),
        Issue(arguments: ["--student", "S1001", "--ttl", "120"], subject: "S1001", role: .student, lifetime: 120),
        Issue(arguments: ["--ops", "ops", "--ttl", "365d"], subject: "ops", role: .ops, lifetime: 31_536_000),
        Issue(arguments: ["--ops", "night-shift_2", "--ttl", "60s"], subject: "night-shift_2", role: .ops, lifetime: 60),
    ])
    func issue(_ example: Issue) async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let result = try await workspace.run(example.arguments)
        #expect(result.status == 0, "\(result.stderr)")
        let (principal, lifetime) = try await workspace.verify(result.stdout.trimmingCharacters(in: .newlines))
        #expect(principal.subject == example.subject)
        #expect(principal.role == example.role)
        #expect(lifetime == example.lifetime)
    }

    @Test("The default lifetime comes from the configuration")
    func configuredLifetime() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let environment = ["TILAWA_AUTH_DEFAULT_TOKEN_TTL_SECONDS": "600"]
        let result = try await workspace.run(["--ops", "amina"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try await workspace.verify(result.stdout.trimmingCharacters(in: .newlines), environment: environment).1 == 600)
    }

    @Test("Bad usage exits 64 and prints no token", arguments: [
        [], ["--student", "S1", "--coach", "C1"], ["--student", "S1", "--ops", "amina"], ["--coach", "C1", "--ops", "amina"],
        ["--student", "../etc"], ["--student", ""], ["--coach", "C 1"], ["--student", String(repeating: "a", count: 65)],
        ["--ops", "amina", "--ttl", "59s"], ["--ops", "amina", "--ttl", "366d"], ["--ops", "amina", "--ttl", "abc"],
        ["--ops", "amina", "--ttl", "0"], ["--ops", "amina", "--ttl", "1.5h"], ["--ops", "amina", "--ttl", "1w"],
        ["--ops", "amina", "--ttl", "99999999999999999999d"], ["--ops", "amina", "S1"], ["--ops"], ["--ops", "a b"],
        ["--ops", "../etc"], ["--student"],
    ])
    func usage(_ arguments: [String]) async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let result = try await workspace.run(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: workspace.stateDirectory), "no key is created for a usage error")
    }

    @Test("An explicitly configured key file that is missing exits 78 with one line naming the key")
    func missingExplicitKey() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let result = try await workspace.run(["--student", "S1001"], environment: ["TILAWA_AUTH_JWT_KEY_FILE": "nowhere/jwt.key"])
        #expect(result.status == 78)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("tilawa: bad_configuration: auth.jwt_key_file: the key file \(workspace.scratch.path("nowhere/jwt.key")) does not exist"))
        #expect(result.stderr.filter { $0 == "\n" }.count == 1)
    }
}

/// The JSON payload of a JWT (its second segment, base64url without padding).
private func payload(of token: String) throws -> [String: Any] {
    var segment = String(token.split(separator: ".", omittingEmptySubsequences: false)[1])
        .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while segment.count % 4 != 0 { segment += "=" }
    let data = try #require(Data(base64Encoded: segment))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}
