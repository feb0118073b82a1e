import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization
import TilawaS3
import TilawaStore

/// Artifacts in an S3-compatible store (`artifacts.url: s3://bucket/prefix`): the object key
/// of `submissions/2026/11/x.opus` is `prefix/submissions/2026/11/x.opus`.
///
/// The `ArtifactRemote` calls block their thread until the store answers (they run where the
/// artifact work runs: the audio work pool, the sweep's thread, a command); serving reads
/// through the async `size(of:)` and `read(_:range:)` instead, without blocking.
public struct S3ArtifactRemote: ArtifactRemote {
    public let client: S3Client
    public let location: S3Location
    /// The same store through `serving`'s connections (reads proxied to phones).
    let servingClient: S3Client

    public init(client: S3Client, location: S3Location, servingClient: S3Client? = nil) {
        self.client = client
        self.location = location
        self.servingClient = servingClient ?? client
    }

    /// The remote `configuration` names, or nil for artifacts in the state directory.
    /// - Throws: `ConfigurationError` when a key file cannot be read (exit 78, naming it).
    public static func configured(in configuration: TilawaConfiguration) throws -> S3ArtifactRemote? {
        let settings = configuration.artifacts
        guard let location = settings.s3Location else { return nil }
        guard let endpoint = settings.s3Endpoint, let accessKeyFile = settings.s3AccessKeyFile,
              let secretKeyFile = settings.s3SecretKeyFile else {
            throw ConfigurationError(key: "s3.endpoint", message: "artifacts.url is \(location): s3.endpoint, s3.access_key_file and s3.secret_key_file are all needed")
        }
        let credentials: S3Credentials
        do {
            credentials = try S3Credentials.load(accessKeyFile: accessKeyFile, secretKeyFile: secretKeyFile)
        } catch {
            throw ConfigurationError(key: "s3.access_key_file", message: "\(error)")
        }
        var client = S3Client(endpoint: endpoint, credentials: credentials, region: settings.s3Region, http: Self.http)
        // An artifact's upload happens while a student waits for the answer (the original) or
        // before a job's row commits: a store that does not answer within a minute is down.
        client.timeout = .seconds(60)
        var serving = client
        serving.http = Self.serving
        return S3ArtifactRemote(client: client, location: location, servingClient: serving)
    }

    /// One client for the process (never shut down: it lives as long as the process). It does
    /// not keep retrying a connection the store refuses (the shared client does, until the
    /// request's deadline): a store that is down is said at once — a student's upload answered
    /// 503 in a moment, not after a minute — and a stopping daemon is not held by it.
    static let http = client(connectionsPerHost: 8)

    /// The client proxied audio streams from: a phone that reads slowly (or a paused player)
    /// holds a connection as long as it takes, and must not queue uploads, encode jobs and
    /// `/readyz` behind it.
    static let serving = client(connectionsPerHost: 256)

    /// Connections refused said at once; a store that stops sending mid-body given up after
    /// 30 s without a byte (the request deadline ends once the headers have arrived).
    private static func client(connectionsPerHost: Int) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connectionsPerHost
        configuration.timeout.connect = .seconds(10)
        configuration.timeout.read = .seconds(30)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    public var description: String { "\(location) at \(client.endpoint.absoluteString)" }

    public func upload(file path: String, to relative: String) throws {
        try Self.blocking { try await Self.retrying { try await client.putFile(bucket: location.bucket, key: try key(relative), path: path) } }
    }

    public func upload(data: Data, to relative: String) throws {
        _ = try Self.blocking {
            try await Self.retrying { try await client.putObject(bucket: location.bucket, key: try key(relative), bytes: Array(data)) }
        }
    }

    public func download(_ relative: String, to path: String) throws -> Bool {
        try Self.blocking { try await fetch(relative, to: path) }
    }

    public func fetch(_ relative: String, to path: String) async throws -> Bool {
        let object: S3Client.Object
        do {
            object = try await Self.retrying { try await client.getObject(bucket: location.bucket, key: try key(relative)) }
        } catch let error as S3Error where error.isNotFound {
            return false
        }
        guard let handle = Self.create(path) else { throw S3Error(code: "local_io", message: "cannot create \(path)") }
        defer { try? handle.close() }
        for try await buffer in object.body {
            try handle.write(contentsOf: buffer.readableBytesView)
        }
        return true
    }

    public func delete(_ relative: String) throws {
        try Self.blocking { try await Self.retrying { try await client.deleteObject(bucket: location.bucket, key: try key(relative)) } }
    }

    public func exists(_ relative: String) throws -> Bool {
        try Self.blocking { try await Self.retrying { try await client.headObject(bucket: location.bucket, key: try key(relative)) } != nil }
    }

    public func list(prefix: String) throws -> [ArtifactEntry] {
        try Self.blocking {
            var entries: [ArtifactEntry] = []
            var token: String?
            repeat {
                let from = token
                let page = try await Self.retrying {
                    try await client.listObjects(bucket: location.bucket, prefix: try key(prefix, listing: true), continuationToken: from)
                }
                for object in page.objects {
                    guard let relative = location.relative(object.key) else { continue }
                    entries.append(ArtifactEntry(path: relative, size: object.size, modified: object.lastModified))
                }
                token = page.nextContinuationToken
            } while token != nil
            return entries
        }
    }

    /// The object key of an artifact's path; refused when the path could name something
    /// outside the prefix (an empty, `.` or `..` segment: some stores normalise paths).
    func key(_ relative: String, listing: Bool = false) throws -> String {
        let path = listing && relative.hasSuffix("/") ? String(relative.dropLast()) : relative
        guard ArtifactStore.isContained(path) else {
            throw S3Error(code: "bad_path", message: "\(relative) is not a path inside \(location)")
        }
        return location.key(relative)
    }

    public func folders(under prefix: String) throws -> [String] {
        try Self.blocking {
            let base = try key(prefix, listing: true)
            var names: [String] = []
            var token: String?
            repeat {
                let from = token
                let page = try await Self.retrying {
                    try await client.listObjects(bucket: location.bucket, prefix: base, delimiter: "/", continuationToken: from)
                }
                names += page.commonPrefixes.compactMap { folder in
                    folder.hasPrefix(base) && folder.hasSuffix("/") ? String(folder.dropFirst(base.count).dropLast()) : nil
                }
                token = page.nextContinuationToken
            } while token != nil
            return names
        }
    }

    public func claim(for installation: String) throws -> String? {
        let marker = Self.installationMarker
        return try Self.blocking {
            let current: String
            do {
                current = String(decoding: try await Self.retrying {
                    try await client.getBytes(bucket: location.bucket, key: try key(marker), limit: 4_096)
                }, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            } catch let error as S3Error where error.isNotFound {
                _ = try await Self.retrying {
                    try await client.putObject(bucket: location.bucket, key: try key(marker), bytes: Array((installation + "\n").utf8))
                }
                return nil
            }
            return current == installation ? nil : current
        }
    }

    // MARK: Serving

    /// The object's size, or nil when the store has no such object.
    public func size(of relative: String) async throws -> Int? {
        try await Self.retrying { try await client.headObject(bucket: location.bucket, key: try key(relative)) }.map { Int($0.size) }
    }

    /// The object's bytes in `range` (all of them for nil), streamed from the store as it sends them.
    public func read(_ relative: String, range: ClosedRange<Int>?) async throws -> S3Client.Object {
        try await Self.retrying {
            try await servingClient.getObject(bucket: location.bucket, key: try key(relative),
                                       range: range.map { "bytes=\($0.lowerBound)-\($0.upperBound)" })
        }
    }

    /// Whether the store answers this node with its keys: one listing of at most one key under
    /// the prefix (bucket, keys and clock all checked), within 3 s, not retried (`/readyz`).
    public func isReachable() async -> Bool {
        var probe = client
        probe.timeout = .seconds(3)
        return (try? await probe.listObjects(bucket: location.bucket, prefix: location.prefix, maxKeys: 1)) != nil
    }

    // MARK: Retries

    /// Runs a request again when the store did not answer or said it could not just now (every
    /// request here is idempotent: a PUT of the same key and bytes, a GET, a HEAD, a DELETE, a
    /// listing): twice more, after 0.2 s and 1 s. A refusal (keys, no such key) is not retried.
    static func retrying<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        var delays: [Duration] = [.milliseconds(200), .seconds(1)]
        while true {
            do {
                return try await body()
            } catch let error as S3Error where isTransient(error) && !delays.isEmpty {
                try await Task.sleep(for: delays.removeFirst())
            }
        }
    }

    /// Whether a failure may pass: no answer, or a 5xx (S3's `InternalError`, `SlowDown`).
    static func isTransient(_ error: S3Error) -> Bool {
        error.code == "unreachable" || (500...599).contains(error.status ?? 0)
    }

    // MARK: Blocking

    /// Runs `body` on the concurrency pool and waits for it on this thread — which must not be
    /// one of that pool's (the callers are the audio work pool's, the sweep's or a command's
    /// threads), or enough such waits would leave no thread to run `body`.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Outcome<T>()
        Task.detached {
            do {
                outcome.finish(.success(try await body()))
            } catch {
                outcome.finish(.failure(error))
            }
        }
        return try outcome.wait()
    }

    private static func create(_ path: String) -> FileHandle? {
        FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o640]) ? FileHandle(forWritingAtPath: path) : nil
    }
}

/// One result handed from a task to a waiting thread.
private final class Outcome<T: Sendable>: Sendable {
    private let result = Mutex<Result<T, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    func finish(_ value: Result<T, any Error>) {
        result.withLock { $0 = value }
        done.signal()
    }

    func wait() throws -> T {
        done.wait()
        guard let value = result.withLock({ $0 }) else { throw S3Error(code: "internal", message: "no result") }
        return try value.get()
    }
}
