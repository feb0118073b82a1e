import Foundation
import GRDB

/// The last backup of this state directory, whoever made it (the schedule or `tilawa backup create`).
public struct LastBackup: Sendable, Equatable {
    public var at: Date
    public var path: String
    /// Whether it was verified (re-hashed) after it was made.
    public var verified: Bool
}

extension AppDatabase {
    static let lastBackupKey = "last_backup"

    /// Records a backup made (and whether it was verified) in `meta`, for `status`.
    public func recordBackup(path: String, at: Date, verified: Bool) throws {
        let value = try String(decoding: JSONEncoder.backupMeta.encode(LastBackupValue(path: path, verified: verified)), as: UTF8.self)
        try engine.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value, updatedAt) VALUES (?, ?, ?)",
                           arguments: [Self.lastBackupKey, value, at])
        }
    }

    /// The last backup recorded, if any.
    public func lastBackup() throws -> LastBackup? {
        try engine.read { db in try Self.lastBackup(db) }
    }

    static func lastBackup(_ db: SQLSession) throws -> LastBackup? {
        guard try db.tableExists("meta"),
              let row = try Row.fetchOne(db, sql: "SELECT value, updatedAt FROM meta WHERE key = ?", arguments: [lastBackupKey]),
              let text = row["value"] as String?, let at = row["updatedAt"] as Date?,
              let value = try? JSONDecoder().decode(LastBackupValue.self, from: Data(text.utf8)) else { return nil }
        return LastBackup(at: at, path: value.path, verified: value.verified)
    }

    private struct LastBackupValue: Codable {
        var path: String
        var verified: Bool
    }
}

extension JSONEncoder {
    fileprivate static var backupMeta: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

/// Scheduled backups (`backup.dir`, `backup.every_hours`, `backup.keep`): one directory per run
/// named by its UTC instant, the newest whole one lending its unchanged files, each verified
/// after it is made; the oldest beyond `keep` removed, and unfinished ones (no manifest) of an
/// interrupted run removed before the next.
public struct BackupSchedule: Sendable {
    public let database: AppDatabase
    public let stateDirectory: StateDirectory
    public let directory: String
    public let every: TimeInterval
    public let keep: Int

    public init(database: AppDatabase, stateDirectory: StateDirectory, directory: String, everyHours: Int, keep: Int) {
        self.database = database
        self.stateDirectory = stateDirectory
        self.directory = directory
        every = TimeInterval(everyHours) * 3_600
        self.keep = keep
    }

    /// What a run did.
    public struct Outcome: Sendable {
        public var path: String
        public var report: BackupMaker.Report
        public var removed: [String]
    }

    /// Makes a backup when the last one (whoever made it) is `every` old or more; nil when none is due.
    public func runIfDue(now: Date) throws -> Outcome? {
        if let last = try database.lastBackup(), now.timeIntervalSince(last.at) < every, now >= last.at { return nil }
        if mkdir(directory, 0o750) != 0, errno != EEXIST {
            throw BackupError("cannot_write", "cannot create \(directory): \(String(cString: strerror(errno)))")
        }
        let names = ownBackups()
        // An interrupted run left a directory without a manifest: not a backup; removed.
        for name in names where !FileManager.default.fileExists(atPath: directory + "/" + name + "/" + BackupManifest.fileName) {
            try? FileManager.default.removeItem(atPath: directory + "/" + name)
        }
        let whole = names.filter { FileManager.default.fileExists(atPath: directory + "/" + $0 + "/" + BackupManifest.fileName) }
        let name = Self.name(for: now)
        let path = directory + "/" + name
        guard !whole.contains(name) else { return nil }
        let report = try BackupMaker(database: database, stateDirectory: stateDirectory)
            .create(at: path, previous: whole.last.map { directory + "/" + $0 }, now: now)
        _ = try BackupVerifier.verify(path)
        try database.recordBackup(path: path, at: now, verified: true)
        var removed: [String] = []
        for old in (whole + [name]).dropLast(keep) {
            try? FileManager.default.removeItem(atPath: directory + "/" + old)
            removed.append(old)
        }
        return Outcome(path: path, report: report, removed: removed)
    }

    /// The directories this schedule made (`20261127T073000Z`), oldest first; nothing else in
    /// `directory` is ever touched.
    func ownBackups() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.count == 16 && $0.hasSuffix("Z") && $0.dropLast().allSatisfy { $0.isASCII && ($0.isNumber || $0 == "T") } }
            .sorted()
    }

    static func name(for instant: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: instant)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
                      parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }
}
