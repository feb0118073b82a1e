import ArgumentParser
import AsyncHTTPClient
import Foundation
import TilawaDaemon
import TilawaS3

/// `tilawa s3 check`: whether the store `artifacts.url` and `s3.*` name takes, serves and
/// removes an object as Tilawa will ask it to (DESIGN §13), before any artifact goes there.
struct S3Command: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "s3",
        abstract: "Check the S3-compatible store artifacts.url names.",
        subcommands: [S3CheckCommand.self]
    )
}

struct S3CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Write, read back (whole and a byte range), list and remove a probe object in the configured bucket.",
        discussion: """
            Every request is signed with the configured keys (SigV4), as the daemon's will be. One line \
            per step. Exit status: 0 ready, 69 the store cannot be reached or answers wrongly, 77 it \
            refuses the requests (keys, clock, permissions), 78 configuration (no s3:// artifacts.url, \
            a key file unreadable, no such bucket).
            """
    )

    @OptionGroup var config: ConfigurationOptions

    func run() async throws {
        let configuration = try config.load()
        let settings = configuration.artifacts
        guard let location = settings.s3Location, let endpoint = settings.s3Endpoint,
              let accessKeyFile = settings.s3AccessKeyFile, let secretKeyFile = settings.s3SecretKeyFile else {
            throw CommandLineOutput.fail(code: "bad_configuration", message: "artifacts.url is not an s3:// location: nothing to check",
                                         exit: ExitStatus.configuration)
        }
        let credentials: S3Credentials
        do {
            credentials = try S3Credentials.load(accessKeyFile: accessKeyFile, secretKeyFile: secretKeyFile)
        } catch {
            throw CommandLineOutput.fail(code: "bad_configuration", message: "\(error)", exit: ExitStatus.configuration)
        }
        // Its own HTTP client, so that a store that cannot be reached is said at once (the shared
        // client keeps trying to connect until the request's deadline).
        var httpConfiguration = HTTPClient.Configuration()
        httpConfiguration.connectionPool.retryConnectionEstablishment = false
        httpConfiguration.timeout.connect = .seconds(10)
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: httpConfiguration)
        do {
            try await check(S3Client(endpoint: endpoint, credentials: credentials, region: settings.s3Region, http: http),
                            location: location, endpoint: endpoint, files: (accessKeyFile, secretKeyFile))
        } catch {
            try? await http.shutdown()
            throw error
        }
        try? await http.shutdown()
    }

    private func check(_ client: S3Client, location: S3Location, endpoint: URL, files: (String, String)) async throws {
        let key = location.key(".tilawa-check/\(UUID().uuidString.lowercased())")
        let bytes = (0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        var step = ""
        do {
            step = "write"
            try await client.putObject(bucket: location.bucket, key: key, bytes: bytes, contentType: "application/octet-stream")
            print("ok   wrote \(bytes.count) bytes to \(location.bucket)/\(key)")
            step = "read back"
            guard try await client.getBytes(bucket: location.bucket, key: key) == bytes else { throw Self.wrong("the object read back differs") }
            let part = try await client.getRange(bucket: location.bucket, key: key, range: "bytes=100-199")
            guard part.status == 206, part.bytes == Array(bytes[100...199]) else {
                throw Self.wrong("a byte range came back as HTTP \(part.status), not the 100 bytes asked for")
            }
            print("ok   read it back whole and a byte range (206)")
            step = "list"
            let listing = try await client.listObjects(bucket: location.bucket, prefix: location.key(".tilawa-check/"))
            guard listing.objects.contains(where: { $0.key == key }) else { throw Self.wrong("the listing of \(location) does not show it") }
            print("ok   listed it under \(location.prefix).tilawa-check/")
            step = "remove"
            try await client.deleteObject(bucket: location.bucket, key: key)
            guard try await client.headObject(bucket: location.bucket, key: key) == nil else { throw Self.wrong("it is still there after its removal") }
            print("ok   removed it")
        } catch let error as S3Error {
            throw CommandLineOutput.fail(code: "s3_\(step.replacingOccurrences(of: " ", with: "_"))_failed",
                                         message: "\(step): \(Self.explain(error, endpoint: endpoint, location: location, files: files))",
                                         exit: Self.exit(for: error))
        }
        print("\(location) at \(endpoint.absoluteString) is ready")
    }

    private static func wrong(_ sentence: String) -> S3Error { S3Error(code: "wrong_answer", message: sentence) }

    /// The sentence an operator can act on.
    static func explain(_ error: S3Error, endpoint: URL, location: S3Location, files: (String, String)) -> String {
        switch error.code {
        case "SignatureDoesNotMatch": "the store does not accept the signature: the secret key in \(files.1) does not belong to the access key in \(files.0)"
        case "InvalidAccessKeyId": "the store does not know the access key in \(files.0)"
        case "RequestTimeTooSkewed": "this machine's clock is more than 15 minutes off the store's; fix the clock (NTP)"
        case "AuthorizationHeaderMalformed": "the store refuses the signature's scope: is s3.region right? (\(error.message))"
        case "AccessDenied": "the store refuses these keys access to \(location.bucket): \(error.message)"
        case "NoSuchBucket": "\(endpoint.absoluteString) has no bucket \(location.bucket); create it (with versioning on) first"
        case "unreachable": "\(endpoint.absoluteString) cannot be reached: \(error.message)"
        default: error.description
        }
    }

    static func exit(for error: S3Error) -> Int32 {
        switch error.code {
        case "NoSuchBucket": ExitStatus.configuration
        case "SignatureDoesNotMatch", "InvalidAccessKeyId", "RequestTimeTooSkewed", "AuthorizationHeaderMalformed", "AccessDenied": ExitStatus.refusedByRule
        default: error.status == 403 ? ExitStatus.refusedByRule : ExitStatus.unavailable
        }
    }
}
