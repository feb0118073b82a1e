import Foundation
import TilawaCore

/// Everything `tilawa serve` is configured with (DESIGN §6), checked and with paths made absolute.
///
/// Read it with `load(file:environment:workingDirectory:)`: environment variables `TILAWA_*`
/// win over the YAML file, which wins over the defaults. Every key has a default, so the
/// daemon runs out of the box on `./var`. Property paths follow the keys (`http.maxUploadBytes`
/// is `http.max_upload_bytes`), except that the `audio.*` keys are split into `audioLimits`
/// and `encoder`, and one-key sections are flattened (`encodeWorkers`, `idempotencyRetention`,
/// `logLevel`, `logIds`). Time spans are `TimeInterval` seconds whatever unit the key is in.
public struct TilawaConfiguration: Sendable, Equatable {
    /// `state_dir`: absolute path of the database, staging area, artifacts and drop folder.
    public var stateDirectory: String
    /// `http.*`.
    public var http = HTTP()
    /// `auth.*`.
    public var auth: Auth
    /// `dropbox.*`.
    public var dropbox: Dropbox
    /// `webhook.*`.
    public var webhook = Webhook()
    /// `push.apns.*`: pushes straight to iPhones; nil when not configured.
    public var apns: APNs?
    /// `push.fcm.*`: pushes straight to Android phones; nil when not configured.
    public var fcm: FCM?
    /// Sign-in with the identity provider; nil when not configured.
    public var oidc: OIDC?
    /// `scim.*`: provisioning by the identity provider; nil when `scim.token_file` is not set.
    public var scim: SCIM?
    /// `privacy.*`: consent to the recording policy and erasure asked by the student.
    public var privacy = Privacy()
    /// `program.*`.
    public var program = Program()
    /// `attempts.limit` and `attempts.window_days` (as seconds in `length`).
    public var attemptWindow = AttemptWindow.standard
    /// `audio.min_duration_seconds` … `audio.min_loudness_lufs`: the limits a student recording must meet.
    public var audioLimits = AudioLimits()
    /// `audio.bitrate` … `audio.peak_ceiling_dbfs`: how recordings and replies are encoded.
    public var encoder = EncoderConfiguration()
    /// `feedback.min_duration_seconds` and `feedback.max_duration_seconds`, on top of
    /// `AudioLimits.coachReply`: the limits a coach's reply must meet.
    public var feedbackLimits = AudioLimits.coachReply
    /// `workers.encode`: parallel encode jobs; 0 means one per core (see `encodeWorkerCount(processorCount:)`).
    public var encodeWorkers = 0
    /// `storage.*`.
    public var storage = Storage()
    /// `backup.*`.
    public var backup = Backup()
    /// `artifacts.url` and `s3.*`.
    public var artifacts = Artifacts()
    /// `database.url`, `database.password_file`.
    public var database = DatabaseSettings()
    /// `uploads.*`.
    public var uploads = Uploads()
    /// `submissions.*`.
    public var submissions = Submissions()
    /// `comments.*`.
    public var comments = Comments()
    /// `desk.*`.
    public var desk = Desk()
    /// `idempotency.retention_hours`, in seconds.
    public var idempotencyRetention: TimeInterval = 24 * 3600
    /// `log.level`.
    public var logLevel = LogLevel.info
    /// `log.ids`: pseudonyms (the default) or the ids themselves in the log.
    public var logIds = LogIdentifiers.pseudonym
    /// The directory relative paths were resolved against (absolute).
    public var workingDirectory: String
    /// `$CREDENTIALS_DIRECTORY` (systemd `LoadCredential=`), where relative secret paths are looked up first.
    public var credentialsDirectory: String?

    /// Every key at its default, with the state directory at `stateDirectory`.
    ///
    /// - Parameters:
    ///   - stateDirectory: Made absolute against `workingDirectory` when relative;
    ///     `auth.jwt_key_file` and `dropbox.path` default to paths inside it.
    ///   - workingDirectory: An absolute path.
    public init(stateDirectory: String = "./var", workingDirectory: String, credentialsDirectory: String? = nil) {
        let root = ConfigurationPath.absolute(stateDirectory, in: workingDirectory)
        self.stateDirectory = root
        self.auth = Auth(jwtKeyFile: ConfigurationPath.join(root, "secrets/jwt.key"))
        self.dropbox = Dropbox(path: ConfigurationPath.join(root, "dropbox"))
        self.workingDirectory = ConfigurationPath.absolute(workingDirectory, in: "/")
        self.credentialsDirectory = credentialsDirectory
    }

    /// The number of encode workers to run: `encodeWorkers`, or `processorCount` when it is 0.
    public func encodeWorkerCount(processorCount: Int) -> Int {
        encodeWorkers > 0 ? encodeWorkers : max(1, processorCount)
    }
}
