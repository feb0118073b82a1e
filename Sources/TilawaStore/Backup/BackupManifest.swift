import Foundation

/// What a backup holds (DESIGN §12), written last as `manifest.json`: a backup without one is
/// unfinished and is never taken for a whole one. Every file is named by its path relative to
/// the state directory (`artifacts/…`, `photos/…`) with its size and SHA-256.
public struct BackupManifest: Codable, Sendable, Equatable {
    /// One file of the backup.
    public struct Entry: Codable, Sendable, Equatable {
        /// Relative to the state directory (and to the backup's `files/`).
        public var path: String
        public var size: Int64
        public var sha256: String
        /// The source's modification time (seconds), to recognise an unchanged file next time.
        public var modified: Double

        public init(path: String, size: Int64, sha256: String, modified: Double) {
            self.path = path
            self.size = size
            self.sha256 = sha256
            self.modified = modified
        }
    }

    /// This layout's number; a restore refuses one it does not know.
    public var format: Int
    public var createdAt: Date
    /// The database copy (`tilawa.sqlite` in the backup).
    public var database: Entry
    /// The migrations the copy has, for a restore by an older release to refuse it.
    public var migrations: [String]
    public var files: [Entry]
    /// The configuration keys a restored daemon needs from its credentials (never backed up).
    public var secretsNotIncluded: [String]
    /// Files the database named that were already missing from the state directory when the
    /// backup was made (a restore cannot bring them back; `verify` does not count them against it).
    public var missingAtSource: [String]
    /// The erasure ledger when the backup was made: a restore of this or an older backup beside
    /// it erases these students again.
    public var erased: [String]

    public static let currentFormat = 1
    public static let fileName = "manifest.json"
    public static let databaseName = "tilawa.sqlite"
    public static let filesDirectory = "files"

    enum CodingKeys: String, CodingKey {
        case format, database, migrations, files
        case createdAt = "created_at"
        case secretsNotIncluded = "secrets_not_included"
        case missingAtSource = "missing_at_source"
        case erased
    }

    /// Whether `path` may name a file of a backup: relative, under `artifacts/` or `photos/`,
    /// no empty, `.` or `..` component, no control character (Unicode's Cc: U+0000–U+001F,
    /// U+007F–U+009F) — a manifest is read from a
    /// directory anyone may have changed, and a restore must never write outside its target.
    public static func isSafe(_ path: String) -> Bool {
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        return components.count >= 2 && ["artifacts", "photos"].contains(components[0]) && path.utf8.count <= 1024
            && ArtifactStore.isContained(path) && !path.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }
}

/// Why a backup could not be made, verified or restored: a stable code and one sentence that
/// names the file.
public struct BackupError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: String
    public let message: String

    public init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
