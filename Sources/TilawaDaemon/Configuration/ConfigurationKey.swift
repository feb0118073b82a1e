/// One configuration key: its dotted name, its environment variable, its default and its meaning.
///
/// `all` is the catalogue: the loader rejects any key in the YAML file and any `TILAWA_*`
/// variable that is not in it (a typo silently ignored is a misconfigured machine), and
/// `CONFIGURATION.md` and `config/tilawa.yaml` document exactly these keys.
public struct ConfigurationKey: Sendable, Hashable {
    /// Dotted name, `section.name_in_snake_case` (`http.max_upload_bytes`); YAML nests it.
    public let name: String
    /// The default as written in the documentation.
    public let defaultValue: String
    /// One line saying what the key does.
    public let meaning: String

    /// `TILAWA_` followed by the name in upper case with dots as underscores: `TILAWA_HTTP_PORT`.
    ///
    /// The same name swift-configuration's `EnvironmentVariablesProvider` derives from the key
    /// prefixed with `tilawa`.
    public var environmentVariable: String {
        "TILAWA_" + String(name.uppercased().map { $0 == "." ? "_" : $0 })
    }

    /// The YAML section (`http` for `http.port`), or nil for a top-level key (`state_dir`).
    public var section: String? {
        name.firstIndex(of: ".").map { String(name[..<$0]) }
    }

    /// The documentation's table of every key, in catalogue order (`tilawa config keys
    /// --markdown`). The README and `CONFIGURATION.md` carry it verbatim (`make config-docs`
    /// writes it there); a test fails when either differs.
    public static var markdownTable: String {
        func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }
        let rows = all.map { key in
            "| `\(key.name)` | `\(key.environmentVariable)` | \(cell(key.defaultValue)) | \(cell(key.meaning)) |"
        }
        return (["| key | environment variable | default | meaning |", "|---|---|---|---|"] + rows).joined(separator: "\n")
    }

    /// The table of `markdownTable`'s form found in a document's `text` (from its header row to
    /// the last row after it), or nil when there is none.
    public static func markdownTable(in text: String) -> String? {
        let lines = text.components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: "| key | environment variable | default | meaning |") else { return nil }
        let table = lines[start...].prefix { $0.hasPrefix("|") }
        return table.joined(separator: "\n")
    }

    init(_ name: String, _ defaultValue: String, _ meaning: String) {
        self.name = name
        self.defaultValue = defaultValue
        self.meaning = meaning
    }

    /// Every key, in documentation order.
    public static let all: [ConfigurationKey] = [
        .init("state_dir", "`./var` (`$STATE_DIRECTORY` under systemd)",
              "Directory for the database, staging area, artifacts and drop folder."),
        .init("http.host", "`127.0.0.1`", "Address the HTTP API listens on."),
        .init("http.port", "`8080`", "TCP port of the HTTP API (1–65535)."),
        .init("http.max_upload_bytes", "`104857600`",
              "Largest accepted upload in bytes (1 KiB–4 GiB); larger ones get 413."),
        .init("http.max_concurrent_uploads", "`32`",
              "Uploads (recordings, replies, voice messages) received or judged at once; past it a new one gets 503 `too_many_uploads` with `Retry-After` before its body is read (1–4096)."),
        .init("http.max_uploads_per_principal", "`3`",
              "Uploads one signed-in student or coach may have in flight at once, decided after the token is verified and before the body is read; past it 429 `too_many_uploads_for_you` with `Retry-After` (1–4096)."),
        .init("http.coach_upload_slots", "`4`",
              "Slots of `http.max_concurrent_uploads` kept for coaches' uploads (replies, voice answers): students' uploads get 503 `too_many_uploads` once only these are left (0 to `max_concurrent_uploads` − 1; the default shrinks with a smaller pool)."),
        .init("http.min_upload_bytes_per_second", "`1024`",
              "Slowest an upload body may arrive, averaged over each `http.min_upload_rate_window_seconds` from its first byte read (waiting for `100 Continue` does not count); below it the upload is cut with 408 `upload_too_slow` and its slot freed — a one-shot upload keeps nothing, a resumable append keeps what arrived (0 = no minimum)."),
        .init("http.min_upload_rate_window_seconds", "`30`", "The window `http.min_upload_bytes_per_second` is measured over (1–3600 s)."),
        .init("http.upload_timeout_seconds", "`300`", "Longest time an upload body may take to arrive after its headers; past it the connection is closed (`upload_incomplete`, nothing counted) (1–86400 s)."),
        .init("auth.jwt_key_file", "`<state_dir>/secrets/jwt.key`",
              "File holding the HS256 token key; created at first start when left at its default."),
        .init("auth.default_token_ttl_seconds", "`3600`",
              "Lifetime of tokens minted by `tilawa token issue` without `--ttl` (60–31536000 s)."),
        .init("auth.local_tokens", "`true`",
              "Accept the daemon's own HS256 tokens (`tilawa token issue`); `false` once every client signs in through the identity provider (desk sessions are unaffected)."),
        .init("oidc.issuer", "none",
              "The identity provider's issuer (`iss`, exact); with `oidc.audience` and a key set it turns on sign-in with the provider's access tokens (RS256, ES256)."),
        .init("oidc.audience", "none",
              "This service's audience; a provider token's `aud` must contain it."),
        .init("oidc.jwks_url", "none",
              "http(s) URL of the provider's published keys (JWKS), cached by its max-age (5 min – 24 h), refetched at most every 30 s for an unknown `kid`."),
        .init("oidc.jwks_file", "none",
              "A JWKS file to read instead of `oidc.jwks_url` (re-read when the cache expires)."),
        .init("oidc.ops_subjects", "none",
              "Operators by provider `sub`: `sub=Name` pairs separated by commas (`auth0|61f0=amina`); the name (an id) is who acts in logs and the audit trail."),
        .init("oidc.subject_is_id", "`false`",
              "Let a provider `sub` equal to a student's or coach's id sign them in when they have no `subject` of their own."),
        .init("oidc.desk_client_id", "none",
              "The desk's client id at the provider (a public client, no secret); with it the desk's sign-in page offers \"Sign in with <oidc.desk_name>\" (authorization code with PKCE; the provider must allow `<desk.public_url>/desk/oidc/callback`), and a coach is found by `subject`."),
        .init("oidc.desk_name", "the issuer's host",
              "The provider's name on the desk's sign-in button (one line, at most 60 characters)."),
        .init("scim.token_file", "none",
              "File holding the bearer token of the identity provider's SCIM client (at least 32 characters of `A–Z a–z 0–9 - . _ ~ + /`, as `openssl rand -hex 32` prints; a relative path is looked up in `$CREDENTIALS_DIRECTORY` first): with it, `/scim/v2/` provisions students and coaches (RFC 7644), and accepts that token only."),
        .init("scim.default_role", "`student`",
              "The role of a provisioned user whose Tilawa extension names none: `student` or `coach` (a coach must already be in program.yaml)."),
        .init("privacy.require_consent", "`false`",
              "With `true`, every upload — the placement assessment too, by any path (HTTP, resumable, `tilawa ingest`, `capture`) — needs the student's consent to the recording policy (`PUT /v1/students/{id}/consent`, by the student or ops); without one it is 409 `consent_required`, before its body is read."),
        .init("privacy.policy_url", "none",
              "The recording policy students read and accept (an http or https URL), named in every `consent_required`; required with `privacy.require_consent: true`."),
        .init("privacy.policy_version", "none",
              "The policy's current version: when set, a consent to another version is 422 `policy_version_mismatch`, and one given earlier to another version no longer counts."),
        .init("privacy.adult_age", "`18`",
              "A student younger than this (by students.csv's `date_of_birth`, in `program.time_zone`) consents through a guardian: `given_by: guardian` with `guardian_name` (1–30)."),
        .init("privacy.erasure_grace_days", "`30`",
              "Days from a student's erasure request (`POST /v1/students/{id}/erasure-request`) to its erasure, which the daemon carries out once due unless it was cancelled (0–365)."),
        .init("dropbox.path", "`<state_dir>/dropbox`", "Root of the coach drop folder (`<path>/<coach-id>/`)."),
        .init("dropbox.settle_seconds", "`5`",
              "A dropped file is taken once its size and mtime are stable this long (0–3600 s)."),
        .init("dropbox.poll_interval_seconds", "`2`", "How often the drop folder is scanned (0.1–3600 s)."),
        .init("dropbox.max_reply_bytes", "`209715200`",
              "Largest coach reply in bytes (1 KiB–4 GiB); a larger file goes to `rejected/` unread."),
        .init("webhook.url", "none",
              "http(s) URL that receives each notification; none keeps notifications in the outbox only."),
        .init("webhook.secret_file", "none",
              "File holding the HMAC-SHA256 signing key (its bytes, or a Standard Webhooks `whsec_<base64>` secret, decoded); required when `webhook.url` is set."),
        .init("webhook.previous_secret_file", "none",
              "The signing key being rotated out: while set, deliveries carry a signature with each key (both headers)."),
        .init("webhook.timeout_seconds", "`10`", "Timeout of one webhook delivery (1–300 s)."),
        .init("webhook.max_backoff_seconds", "`3600`", "Cap of the retry backoff (5–604800 s)."),
        .init("push.apns.key_file", "none",
              "APNs signing key (the `.p8` file Apple issued; a relative path is looked up in `$CREDENTIALS_DIRECTORY` first); with `key_id`, `team_id` and `topic`, notices are pushed to registered iPhones."),
        .init("push.apns.key_id", "none", "The APNs key's id (10 characters, as Apple shows it)."),
        .init("push.apns.team_id", "none", "The Apple developer team's id (10 characters)."),
        .init("push.apns.topic", "none", "The app's bundle id, the topic every push names."),
        .init("push.apns.endpoint", "Apple's hosts",
              "One https origin for every device instead of `api.push.apple.com` and `api.sandbox.push.apple.com` (by each device's `environment`): a relay or a test server."),
        .init("push.apns.ca_file", "none", "PEM certificates trusted for the APNs endpoint besides the system's (a private relay, a test server)."),
        .init("push.fcm.service_account_file", "none",
              "Firebase service account key (the JSON file Google issued; a relative path is looked up in `$CREDENTIALS_DIRECTORY` first): with it, notices are pushed to registered Android phones through FCM's HTTP v1 API."),
        .init("push.fcm.project_id", "the account's", "The Firebase project the app belongs to, when not the service account's own."),
        .init("push.fcm.endpoint", "`https://fcm.googleapis.com`", "The FCM API's https origin (a relay, a test server)."),
        .init("push.fcm.ca_file", "none", "PEM certificates trusted for the FCM endpoint and the account's token endpoint besides the system's (a relay, a test server)."),
        .init("program.time_zone", "`America/New_York`", "IANA time zone the weeks unlock and fall due in."),
        .init("program.catch_up_grace_days", "`14`",
              "Days after the last week during which catching up is still accepted (0–365)."),
        .init("program.eoc_required_weeks", "`12`",
              "Distinct weeks with an accepted submission needed before the end-of-course assessment (0–99)."),
        .init("program.eoc_late_joiners", "`strict`",
              "`strict`: a student placed after week 1 needs `program.eoc_required_weeks` too (recording earlier weeks, never late for them); `proportional`: only as many as the weeks owed since placement before the assessment opens."),
        .init("program.feedback_due_hours", "`48`",
              "Hours a coach has to answer a weekly recording before it is overdue (1–8760)."),
        .init("program.eoc_feedback_due_business_days", "`5`",
              "Business days (Monday–Friday, programme time zone, less `program.holidays`) an end-of-course result may take (1–60)."),
        .init("program.holidays", "none",
              "Dates that are not business days, `YYYY-MM-DD` separated by commas (e.g. `2026-11-26,2026-12-25`)."),
        .init("program.placement_due_hours", "`48`",
              "Hours within which a placement assessment is answered with a level (1–8760)."),
        .init("notifications.deadline_reminders", "`2@18:00,1@18:00`",
              "`deadline_reminder`s: days before the deadline's day (0–6) and a local time, comma-separated, or `none`."),
        .init("notifications.quiet_hours", "`22:00-07:00`",
              "`HH:MM-HH:MM` in each student's own zone (may wrap midnight; `none`: none) in which nothing of theirs is pushed but a refusal: a reminder or an unlock moves to the end if still before the deadline, else to just before the start; any other push waits for the end. A student may choose their own in preferences."),
        .init("notifications.coach_digest", "`07:00`",
              "Local time each coach's daily `coach_digest` of their queue is due (sent that day if the daemon was down at the time; none when the queue is empty), or `none`."),
        .init("attempts.limit", "`2`", "Accepted recordings per student per window (1–100)."),
        .init("attempts.window_days", "`7`", "Length of the rolling attempt window in days (1–365)."),
        .init("audio.min_duration_seconds", "`10`", "Shorter recordings are rejected `too_short` (0–3600)."),
        .init("audio.max_duration_seconds", "`900`",
              "Longer recordings are rejected `too_long` (1–86400, above the minimum)."),
        .init("audio.min_speech_seconds", "`5`", "Less speech than this is rejected `silent` (0–3600)."),
        .init("audio.min_speech_ratio", "`0.2`", "A smaller share of speech is rejected `silent` (0–1)."),
        .init("audio.min_loudness_lufs", "`-50`", "Quieter recordings are rejected `too_quiet` (−70–0 LUFS)."),
        .init("audio.bitrate", "`32000`", "Opus bitrate in bit/s, VBR (6000–510000)."),
        .init("audio.complexity", "`10`", "Opus encoder complexity (0–10)."),
        .init("audio.signal", "`voice`", "Opus signal hint: `voice`, `music` or `auto`."),
        .init("audio.target_loudness_lufs", "`-19`",
              "Playback loudness the OpusHead output gain aims at (−70–0 LUFS)."),
        .init("audio.peak_ceiling_dbfs", "`-1`", "The output gain never lifts the peak above this (−30–0 dBFS)."),
        .init("feedback.min_duration_seconds", "`2`", "Shortest accepted coach reply (0–3600 s)."),
        .init("feedback.max_duration_seconds", "`1800`", "Longest accepted coach reply (1–86400 s, above the minimum)."),
        .init("workers.encode", "`0`", "Parallel Opus encode jobs; 0 means one per CPU core (0–256)."),
        .init("storage.originals_retention_days", "`30`",
              "Days an uploaded original is kept after its Opus encoding (0–3650)."),
        .init("storage.min_free_bytes", "`268435456`",
              "Uploads are answered 507 `storage_full` when less disk space than this is free."),
        .init("storage.low_free_bytes", "`1073741824`",
              "Below this much free disk space operations get `storage_low` (at most once a local day); `0` never."),
        .init("retention.months_after_semester", "`0`",
              "Remove the audio of enrolments whose semester closed this many months ago (0–1200; `0` keeps it for ever); the daemon applies it daily, `tilawa retention --dry-run` lists it."),
        .init("backup.dir", "none",
              "Where the daemon makes scheduled backups, one directory per run (`tilawa backup create`); none: no scheduled backups."),
        .init("backup.every_hours", "`24`", "Hours between scheduled backups (1–720); `status` warns past twice this."),
        .init("backup.keep", "`7`", "Whole scheduled backups kept in `backup.dir` (1–365); older ones are removed."),
        .init("artifacts.url", "`file:`",
              "Where artifacts live: `file:` (`<state_dir>/artifacts`), `file:///absolute/path` (a directory of a filesystem every node mounts, e.g. NFS; backups are then the filesystem's) or `s3://bucket/prefix` (DESIGN §13: written there before their row commits, audio proxied with `Range`, `artifacts/` only a work area; no `backup.dir` then; `tilawa s3 check` checks the store first)."),
        .init("s3.endpoint", "none", "The S3-compatible store's `http(s)://host[:port]` (path-style requests); required with an `s3://` `artifacts.url`."),
        .init("s3.region", "`us-east-1`", "The region requests are signed for (SigV4)."),
        .init("s3.access_key_file", "none", "File holding the access key (first line); a relative path is looked up in `$CREDENTIALS_DIRECTORY` first."),
        .init("s3.secret_key_file", "none", "File holding the secret key (first line), as `s3.access_key_file`."),
        .init("database.url", "`sqlite:`",
              "Where the metadata lives: `sqlite:` (`<state_dir>/tilawa.sqlite`) or `postgres://user@host[:port]/database` (DESIGN §13: several daemons may share one; `tilawa db check` checks the server first)."),
        .init("database.password_file", "none", "File holding the PostgreSQL password (first line), looked up as `s3.access_key_file`; none: no password (trust or peer authentication)."),
        .init("uploads.max_offline_hours", "`72`",
              "How long before its upload a recording's `Recorded-At` may be and still decide `late` (0–720)."),
        .init("uploads.expire_hours", "`24`",
              "A resumable upload untouched this long is deleted with its bytes (`Upload-Expires`); a finished one's outcome is kept this long (1–720)."),
        .init("uploads.max_open_per_student", "`3`",
              "Unfinished resumable uploads one student may hold; past it 429 `too_many_open_uploads` (1–100)."),
        .init("uploads.staging_budget_bytes", "`4294967296`",
              "Bytes all unfinished resumable uploads may reserve in `uploads/` (their length, or `http.max_upload_bytes` while unknown); past it 507 `upload_budget_full` (1 MiB and up)."),
        .init("submissions.withdraw_minutes", "`10`",
              "Minutes after sending within which a student may withdraw a recording not yet answered (0–1440; 0: never)."),
        .init("comments.max_per_minute", "`10`",
              "Comments one author (a student or a coach) may write in any minute, over all threads; past it 429 `too_many_comments` with `Retry-After` (0–1000; 0: no limit)."),
        .init("desk.public_url", "`http://<http.host>:<http.port>`",
              "The origin coaches reach the desk at; login links are printed as `<desk.public_url>/desk/login?token=…`, and with `https` the session cookie is `Secure`."),
        .init("desk.session_days", "`7`", "A desk session ends this many days after its last use (sliding: the cookie is renewed on use, at most once an hour; 1–365)."),
        .init("desk.session_max_days", "`30`", "A desk session ends this many days after its sign-in however often it is used (`desk.session_days`–3650)."),
        .init("desk.link_request", "`false`",
              "With `true` (and `webhook.url` set), the desk's sign-in page lets a coach ask for a new login link by coach ID or email: the link goes to the webhook in a `desk_link_requested` event for the organisation to deliver, never to the page (which answers alike for anyone); one a coach per 10 minutes."),
        .init("idempotency.retention_hours", "`24`", "How long an `Idempotency-Key` is remembered (24–8760)."),
        .init("log.level", "`info`", "Least severe level logged: trace, debug, info, notice, warning, error, critical."),
        .init("log.ids", "`pseudonym`",
              "How the log names a student, a coach or a sign-in subject: `pseudonym` (a keyed token such as `s_3f9a0c1d2e4b`, the same on every node of the installation; `tilawa log-id` prints one person's) or `clear` (the id itself)."),
    ]

    /// The catalogue by name.
    static let byName: [String: ConfigurationKey] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// The YAML sections (`http`, `auth`, …).
    static let sections: Set<String> = Set(all.compactMap(\.section))

    /// The catalogue by environment variable.
    static let byEnvironmentVariable: [String: ConfigurationKey] =
        Dictionary(uniqueKeysWithValues: all.map { ($0.environmentVariable, $0) })

    /// The known name closest to `name`, if it is close enough to be a typo of it.
    static func suggestion(for name: String, among candidates: some Sequence<String>) -> String? {
        let limit = max(2, name.count / 4)
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(Array(name), Array(candidate))
            if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// Levenshtein distance.
    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
