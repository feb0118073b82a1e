import Foundation
import TilawaCore
import TilawaPostgres
import TilawaS3

extension TilawaConfiguration {
    /// `http.*`: the HTTP API listener and upload limits.
    public struct HTTP: Sendable, Hashable {
        /// `http.host`: address to listen on.
        public var host = "127.0.0.1"
        /// `http.port`: 1…65535.
        public var port = 8080
        /// `http.max_upload_bytes`: larger uploads are answered 413 (1 KiB…4 GiB).
        public var maxUploadBytes = 100 * 1024 * 1024
        /// `http.upload_timeout_seconds`.
        public var uploadTimeout: TimeInterval = 300
        /// `http.max_concurrent_uploads`: uploads in flight at once; past it 503 before the body is read.
        public var maxConcurrentUploads = 32
        /// `http.max_uploads_per_principal`: uploads one signed-in student or coach may have in
        /// flight at once; past it 429 before the body is read.
        public var maxUploadsPerPrincipal = 3
        /// `http.coach_upload_slots`: slots of `maxConcurrentUploads` only coaches' uploads may
        /// take, so students filling the pool never stop a reply.
        public var coachUploadSlots = 4
        /// `http.min_upload_bytes_per_second`: a body arriving slower than this, averaged over
        /// `minUploadRateWindow`, is cut with 408 (0: no minimum).
        public var minUploadBytesPerSecond = 1024
        /// `http.min_upload_rate_window_seconds`.
        public var minUploadRateWindow: TimeInterval = 30

        /// The defaults.
        public init() {}
    }

    /// `auth.*`: token signing.
    public struct Auth: Sendable, Hashable {
        /// `auth.jwt_key_file`: absolute path of the HS256 key.
        public var jwtKeyFile: String
        /// True when `auth.jwt_key_file` was set; when false the daemon may create the key at
        /// its default path on first start, when true a missing file is an error.
        public var jwtKeyFileIsExplicit = false
        /// `auth.default_token_ttl_seconds`.
        public var defaultTokenTTL: TimeInterval = 3600
        /// `auth.local_tokens`: whether the daemon's own HS256 tokens are accepted.
        public var localTokens = true

        /// The defaults with the key at `jwtKeyFile`.
        public init(jwtKeyFile: String) {
            self.jwtKeyFile = jwtKeyFile
        }
    }

    /// `dropbox.*`: the coach drop folder (DESIGN §5).
    public struct Dropbox: Sendable, Hashable {
        /// `dropbox.path`: absolute path of the folder holding one folder per coach.
        public var path: String
        /// `dropbox.settle_seconds`: size and mtime must be stable this long before a file is taken.
        public var settleTime: TimeInterval = 5
        /// `dropbox.poll_interval_seconds`.
        public var pollInterval: TimeInterval = 2
        /// `dropbox.max_reply_bytes`: a larger reply is rejected before it is read (1 KiB…4 GiB).
        public var maxReplyBytes = 200 * 1024 * 1024

        /// The defaults with the folder at `path`.
        public init(path: String) {
            self.path = path
        }
    }

    /// `webhook.*`: delivery of notifications (DESIGN §7).
    public struct Webhook: Sendable, Hashable {
        /// `webhook.url`: an http or https URL; nil keeps notifications in the outbox only.
        public var url: URL?
        /// `webhook.secret_file`: absolute path of the signing key; never nil when `url` is set.
        public var secretFile: String?
        /// `webhook.previous_secret_file`: the key being rotated out; while set, every
        /// delivery carries a signature with each key, so receivers can switch at their pace.
        public var previousSecretFile: String?
        /// `webhook.timeout_seconds`: timeout of one delivery.
        public var timeout: TimeInterval = 10
        /// `webhook.max_backoff_seconds`: cap of the exponential retry backoff.
        public var maxBackoff: TimeInterval = 3600

        /// The defaults: no webhook.
        public init() {}
    }

    /// `program.*`: the programme's calendar and review rules (DESIGN §1).
    public struct Program: Sendable, Hashable {
        /// `program.time_zone`: weeks unlock and fall due in this zone.
        ///
        /// The loader checks the default zone exists like any configured one, so the GMT
        /// fallback (a system without time-zone data) never reaches a running daemon.
        public var timeZone = TimeZone(identifier: "America/New_York") ?? .gmt
        /// `program.catch_up_grace_days`.
        public var catchUpGraceDays = 14
        /// `program.eoc_required_weeks`.
        public var eocRequiredWeeks = 12
        /// `program.eoc_late_joiners`.
        public var eocLateJoiners = SubmissionRules.LateJoiners.strict
        /// `program.feedback_due_hours`, in seconds: past it a submission is `overdue`.
        public var feedbackDue: TimeInterval = 48 * 3600
        /// `program.eoc_feedback_due_business_days`: business days an end-of-course result may take.
        public var eocFeedbackDueBusinessDays = 5
        /// `program.holidays`: local dates that are not business days.
        public var holidays: Set<LocalDate> = []
        /// `program.placement_due_hours`, in seconds: a placement assessment is answered with a level within this.
        public var placementDue: TimeInterval = 48 * 3600
        /// `notifications.deadline_reminders` and `notifications.quiet_hours`.
        public var notificationSchedule: NotificationSchedule = .standard

        /// The defaults.
        public init() {}
    }

    /// `uploads.*`: offline recordings and resumable uploads.
    public struct Uploads: Sendable, Hashable {
        /// `uploads.max_offline_hours`, in seconds: how long before its upload a recording's
        /// `Recorded-At` may be and still decide `late`.
        public var maxOffline: TimeInterval = 72 * 3_600
        /// `uploads.expire_hours`, in seconds: an unfinished resumable upload untouched this
        /// long is deleted with its bytes; a finished one's answer is kept this long.
        public var expiry: TimeInterval = 24 * 3_600
        /// `uploads.max_open_per_student`: unfinished resumable uploads a student may hold.
        public var maxOpenPerStudent = 3
        /// `uploads.staging_budget_bytes`: bytes all unfinished resumable uploads may reserve
        /// (their declared length, or `http.max_upload_bytes` while unknown); past it 507.
        public var stagingBudgetBytes: Int64 = 4 * 1_024 * 1_024 * 1_024

        /// The defaults.
        public init() {}
    }

    /// `submissions.*`: second chances.
    public struct Submissions: Sendable, Hashable {
        /// `submissions.withdraw_minutes`: a student may withdraw a recording this long after
        /// sending it (0: never).
        public var withdrawMinutes = 10

        /// The defaults.
        public init() {}
    }

    /// `desk.*`: the coach's desk in the browser (DESIGN §9).
    public struct Desk: Sendable, Hashable {
        /// `desk.public_url`: the origin login links are printed with (`<url>/desk/login?token=…`);
        /// nil: `http://<http.host>:<http.port>`. With `https`, the session cookie is `Secure`.
        public var publicURL: URL?
        /// `desk.session_days`: a session ends this long after its last use (sliding).
        public var sessionDays = 7
        /// `desk.session_max_days`: a session ends this long after its sign-in, however used.
        public var sessionMaxDays = 30
        /// `desk.link_request`: a coach may ask for a new login link on the sign-in page (it
        /// goes to the webhook as `desk_link_requested`).
        public var linkRequest = false

        /// The defaults.
        public init() {}

        /// Seconds a session lives after its last use.
        public var sessionLifetime: TimeInterval { TimeInterval(sessionDays) * 86_400 }
        /// Seconds a session lives at most after its sign-in.
        public var sessionMaxLifetime: TimeInterval { TimeInterval(sessionMaxDays) * 86_400 }
    }

    /// `comments.*`: the threads under coaches' replies.
    public struct Comments: Sendable, Hashable {
        /// `comments.max_per_minute`: comments one author (a student or a coach) may write in
        /// any minute, over all threads; past it 429 `too_many_comments` (0: no limit).
        public var maxPerMinute = 10

        /// The defaults.
        public init() {}
    }

    /// `storage.*`: retention and disk-space guard.
    public struct Storage: Sendable, Hashable {
        /// `storage.originals_retention_days`, in seconds: how long an original upload is kept
        /// after its Opus encoding.
        public var originalsRetention: TimeInterval = 30 * 86_400
        /// `storage.min_free_bytes`: uploads are answered 507 `storage_full` below this.
        public var minFreeBytes = 256 * 1024 * 1024
        /// `storage.low_free_bytes`: below this, operations get `storage_low` (at most once a
        /// local day); 0 turns it off.
        public var lowFreeBytes = 1024 * 1024 * 1024
        /// `retention.months_after_semester`: audio of enrolments whose semester closed this many
        /// months ago is removed; nil: kept for ever.
        public var retentionMonthsAfterSemester: Int?

        /// The defaults.
        public init() {}
    }

    /// `backup.*`: scheduled backups (DESIGN §12); off unless `dir` is set.
    public struct Backup: Sendable, Hashable {
        /// `backup.dir`: where the daemon writes one backup directory per run; nil: none.
        public var dir: String?
        /// `backup.every_hours`: how often (1–720).
        public var everyHours = 24
        /// `backup.keep`: how many whole backups are kept (1–365); older ones are removed.
        public var keep = 7

        /// The defaults.
        public init() {}
    }
}

extension TilawaConfiguration {
    /// `database.*`: where the metadata lives (DESIGN §13).
    public struct DatabaseSettings: Sendable, Hashable {
        /// `database.url`: nil for `sqlite:` (the state directory's), or the PostgreSQL server.
        public var postgres: PostgresLocation?
        /// `database.password_file` (absolute), for PostgreSQL.
        public var passwordFile: String?
        /// Connections one process keeps to PostgreSQL: as many transactions run at once.
        public var maximumConnections = 8

        /// The default: SQLite in the state directory.
        public init() {}

        /// The first line of `password_file`, nil without one.
        public func password() throws -> String? {
            guard let file = passwordFile else { return nil }
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw ConfigurationError(key: "database.password_file", message: "cannot read \(file)")
            }
            return text.split(separator: "\n", omittingEmptySubsequences: false).first
                .map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
        }
    }

    /// `artifacts.url` and `s3.*`: where artifact files live (DESIGN §13).
    public struct Artifacts: Sendable, Hashable {
        /// `artifacts.url`: nil for `file:` (the state directory's), or the S3 bucket and prefix.
        public var s3Location: S3Location?
        /// `artifacts.url: file:///absolute/path`: a directory of a filesystem the nodes share
        /// (nil: `<state_dir>/artifacts`, or S3).
        public var directory: String?
        /// `s3.endpoint`, `s3.region`, and the key files (absolute paths).
        public var s3Endpoint: URL?
        public var s3Region = "us-east-1"
        public var s3AccessKeyFile: String?
        public var s3SecretKeyFile: String?

        /// The defaults: artifacts in the state directory.
        public init() {}
    }

    /// `oidc.*`: sign-in with the app's identity provider (DESIGN §10); off unless `issuer`,
    /// `audience` and a key set are all given.
    public struct OIDC: Sendable, Hashable {
        public var issuer: String
        public var audience: String
        /// `oidc.jwks_url` or `oidc.jwks_file`.
        public var jwksURL: URL?
        public var jwksFile: String?
        /// `oidc.ops_subjects`: operator name by provider `sub`.
        public var opsSubjects: [String: String] = [:]
        /// `oidc.subject_is_id`.
        public var subjectIsId = false
        /// `oidc.desk_client_id`: the desk's public client at the provider; with it the desk
        /// offers "Sign in with <desk_name>" (authorization code with PKCE).
        public var deskClientId: String? = nil
        /// `oidc.desk_name`: the provider's name on that button (default: the issuer's host).
        public var deskName: String? = nil
    }
}
