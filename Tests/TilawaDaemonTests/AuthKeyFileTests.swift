import Foundation
import Testing
import TilawaTestSupport
@testable import TilawaDaemon

@Suite("JWT key file")
struct AuthKeyFileTests {
    private func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int)
    }

    private func isHex(_ bytes: [UInt8]) -> Bool {
        bytes.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }

    @Test("Missing at the default path: created as 64 hex characters and a newline, mode 0600 in a 0700 directory, stable")
    func creation() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let config = TilawaConfiguration(stateDirectory: "var", workingDirectory: scratch.path)
        let path = scratch.path("var/secrets/jwt.key")
        #expect(config.auth.jwtKeyFile == path)
        #expect(!FileManager.default.fileExists(atPath: path))

        let key = try JWTKeyFile.loadOrCreate(configuration: config)
        #expect(key.count == 64)
        #expect(isHex(key))
        let contents = try #require(FileManager.default.contents(atPath: path))
        #expect([UInt8](contents) == key + [UInt8(ascii: "\n")])
        #expect(try mode(path) == 0o600)
        #expect(try mode(scratch.path("var/secrets")) == 0o700)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("var/secrets")) == ["jwt.key"], "no temporary file is left")

        #expect(try JWTKeyFile.loadOrCreate(configuration: config) == key, "a second load reads the same key")
        #expect(try config.readJWTKey() == key)

        // A token issued with the created key verifies with the key read back.
        let token = try await TokenAuthority(configuration: config).issue(subject: "S1001", role: .student, ttl: 600, now: authTestNow)
        #expect(try await TokenAuthority(key: key).verify(token, now: authTestNow).subject == "S1001")

        let other = try ScratchDirectory()
        defer { other.remove() }
        let otherKey = try JWTKeyFile.loadOrCreate(configuration: TilawaConfiguration(stateDirectory: "var", workingDirectory: other.path))
        #expect(otherKey != key, "each state directory gets its own random key")
    }

    @Test("Concurrent first starts agree on one key")
    func concurrentCreation() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let config = TilawaConfiguration(stateDirectory: "var", workingDirectory: scratch.path)
        let keys = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<16 {
                group.addTask { try JWTKeyFile.loadOrCreate(configuration: config) }
            }
            return try await group.reduce(into: Set<[UInt8]>()) { $0.insert($1) }
        }
        #expect(keys.count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("var/secrets")) == ["jwt.key"])
    }

    @Test("Missing but configured explicitly: an error naming the key, and nothing is created")
    func explicitMissing() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let config = try TilawaConfiguration.load(
            file: nil, environment: ["TILAWA_AUTH_JWT_KEY_FILE": "keys/jwt.key"], workingDirectory: scratch.path)
        #expect(config.auth.jwtKeyFileIsExplicit)
        let error = #expect(throws: ConfigurationError.self) { try JWTKeyFile.loadOrCreate(configuration: config) }
        #expect(error?.key == "auth.jwt_key_file")
        #expect(error?.message.contains(scratch.path("keys/jwt.key")) == true)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("keys")))

        // Even the default path, named explicitly, is not created.
        var named = TilawaConfiguration(stateDirectory: "var", workingDirectory: scratch.path)
        named.auth.jwtKeyFileIsExplicit = true
        #expect((#expect(throws: ConfigurationError.self) { try JWTKeyFile.loadOrCreate(configuration: named) })?.key == "auth.jwt_key_file")
        #expect(!FileManager.default.fileExists(atPath: named.auth.jwtKeyFile))
    }

    @Test("A key shorter than 32 bytes is an error naming the key, whether explicit or at the default path", arguments: [false, true])
    func shortKey(explicit: Bool) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        var config = TilawaConfiguration(stateDirectory: "var", workingDirectory: scratch.path)
        config.auth.jwtKeyFileIsExplicit = explicit
        try FileManager.default.createDirectory(atPath: scratch.path("var/secrets"), withIntermediateDirectories: true)
        // 31 bytes and a newline: the newline does not count.
        try Data((String(repeating: "k", count: 31) + "\n").utf8).write(to: URL(fileURLWithPath: config.auth.jwtKeyFile))
        let error = #expect(throws: ConfigurationError.self) { try JWTKeyFile.loadOrCreate(configuration: config) }
        #expect(error?.key == "auth.jwt_key_file")
        #expect(error?.message.contains("31 bytes") == true)
        #expect(try String(contentsOfFile: config.auth.jwtKeyFile, encoding: .utf8) == String(repeating: "k", count: 31) + "\n", "an existing key is never replaced")
    }

    @Test("An operator's key file is used as its raw bytes")
    func operatorKey() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let bytes: [UInt8] = (0..<40).map { UInt8(($0 * 37 + 11) % 256) }
        try Data(bytes).write(to: URL(fileURLWithPath: scratch.path("operator.key")))
        let config = try TilawaConfiguration.load(
            file: nil, environment: ["TILAWA_AUTH_JWT_KEY_FILE": "operator.key"], workingDirectory: scratch.path)
        #expect(try JWTKeyFile.loadOrCreate(configuration: config) == bytes)
    }

    @Test("A state directory the key cannot be created in is an error naming the key")
    func uncreatable() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // A regular file where the state directory should be.
        try Data("x".utf8).write(to: URL(fileURLWithPath: scratch.path("var")))
        let config = TilawaConfiguration(stateDirectory: "var", workingDirectory: scratch.path)
        let error = #expect(throws: ConfigurationError.self) { try JWTKeyFile.loadOrCreate(configuration: config) }
        #expect(error?.key == "auth.jwt_key_file")
    }
}
