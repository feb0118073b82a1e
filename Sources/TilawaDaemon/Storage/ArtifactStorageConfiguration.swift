import AsyncHTTPClient
import Foundation
import TilawaS3
import TilawaStore

/// The artifact storage `artifacts.url` chooses (DESIGN §13).
enum ArtifactStorageConfiguration {
    /// What makes the storage from the state directory's `artifacts/` (its work area), or nil
    /// for artifacts on disk there.
    /// - Throws: `ConfigurationError` when a key file cannot be read (exit 78, naming it).
    static func storage(in configuration: TilawaConfiguration) throws -> (@Sendable (URL) -> any ArtifactStorage)? {
        let settings = configuration.artifacts
        if let directory = settings.directory {
            let stateRoot = URL(fileURLWithPath: configuration.stateDirectory).standardizedFileURL
            return { _ in DiskArtifactStorage(root: URL(fileURLWithPath: directory), stateRoot: stateRoot) }
        }
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
        var client = S3Client(endpoint: endpoint, credentials: credentials, region: settings.s3Region, http: http)
        // An artifact's upload happens while a student waits for the answer (the original) or
        // before a job's row commits: a store that does not answer within a minute is down.
        client.timeout = .seconds(60)
        var serving = client
        serving.http = Self.serving
        let (writing, reading) = (client, serving)
        return { workArea in S3ArtifactStorage(client: writing, location: location, servingClient: reading, workArea: workArea) }
    }

    /// The storage `configuration` chooses, made as the runtime makes it (its work area the
    /// state directory's `artifacts/`), for a look from outside the runtime (the status report's).
    /// - Throws: `ConfigurationError` when a key file cannot be read.
    static func storage(for configuration: TilawaConfiguration) throws -> any ArtifactStorage {
        StateDirectory(path: configuration.stateDirectory, artifactStorage: try storage(in: configuration)).artifactStore.storage
    }

    /// Whether the store is one service every node reaches over the network (an S3 store), so
    /// that it not answering is every node's outage at once, and what it refuses is answered
    /// 503 `artifact_store_unavailable` with `Retry-After`: `/readyz` then keeps the node in
    /// rotation, `degraded` (`Readiness`). A directory (`file:`, `file:///…`) is this node's
    /// disk or mount: not there, the node is out of rotation.
    static func isRemoteService(_ configuration: TilawaConfiguration) -> Bool {
        configuration.artifacts.s3Location != nil
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
}
