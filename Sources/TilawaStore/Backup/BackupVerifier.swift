import Foundation
import GRDB

/// `tilawa backup verify DIR`: every file of the manifest is there with its size and SHA-256,
/// the database copy passes SQLite's integrity check, and every file its rows reference is in
/// the manifest. The first problem is thrown, naming the file.
public enum BackupVerifier {
    /// What a verification read.
    public struct Report: Sendable, Equatable {
        public var files: Int
        public var bytes: Int64
        public var missingAtSource: [String]
        public var createdAt: Date
    }

    /// The manifest of the backup in `directory`, read and checked for shape (not the files).
    public static func readManifest(_ directory: String) throws -> BackupManifest {
        let path = directory + "/" + BackupManifest.fileName
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BackupError("not_a_backup", "\(path) is missing: this is not a whole backup (an unfinished one has no manifest)")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let manifest = try? decoder.decode(BackupManifest.self, from: data) else {
            throw BackupError("manifest_unreadable", "\(path) is not a readable manifest (truncated or changed)")
        }
        guard manifest.format == BackupManifest.currentFormat else {
            throw BackupError("unknown_format", "\(path) is of format \(manifest.format); this release reads \(BackupManifest.currentFormat)")
        }
        for entry in manifest.files where !BackupManifest.isSafe(entry.path) {
            throw BackupError("unsafe_path", "\(path) names \(MessageQuoting.quoted(entry.path)), which is not a file of a state directory")
        }
        guard manifest.database.path == BackupManifest.databaseName else {
            throw BackupError("unsafe_path", "\(path) names the database \(MessageQuoting.quoted(manifest.database.path))")
        }
        return manifest
    }

    /// Verifies the backup in `directory`.
    public static func verify(_ directory: String) throws -> Report {
        let manifest = try readManifest(directory)
        try check(manifest.database, at: directory + "/" + BackupManifest.databaseName)
        var bytes: Int64 = 0
        for entry in manifest.files {
            try check(entry, at: directory + "/" + BackupManifest.filesDirectory + "/" + entry.path)
            bytes += entry.size
        }
        var configuration = Configuration()
        configuration.readonly = true
        let databasePath = directory + "/" + BackupManifest.databaseName
        let listed = Set(manifest.files.map(\.path)).union(manifest.missingAtSource)
        do {
            let queue = try DatabaseQueue(path: databasePath, configuration: configuration)
            defer { try? queue.close() }
            try queue.read { db in
                let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                guard integrity == ["ok"] else {
                    throw BackupError("corrupt_database", "\(databasePath) fails SQLite's integrity check: \(integrity.prefix(3).joined(separator: "; "))")
                }
                for (table, _, columns) in AppDatabase.artifactColumns {
                    let rows = try Row.fetchCursor(db, sql: "SELECT \(columns.joined(separator: ", ")) FROM \(table)")
                    while let row = try rows.next() {
                        for index in columns.indices {
                            if let path = row[index] as String?, !listed.contains("artifacts/" + path) {
                                throw BackupError("missing_reference", "\(table) names artifacts/\(path), which the backup does not hold")
                            }
                        }
                    }
                }
                for photo in try String.fetchAll(db, sql: "SELECT photoPath FROM coach WHERE photoPath IS NOT NULL") where !listed.contains(photo) {
                    throw BackupError("missing_reference", "a coach's photo \(photo) is not in the backup")
                }
            }
        } catch let error as BackupError {
            throw error
        } catch {
            throw BackupError("corrupt_database", "\(databasePath) cannot be read as a database: \(error)")
        }
        return Report(files: manifest.files.count, bytes: bytes, missingAtSource: manifest.missingAtSource, createdAt: manifest.createdAt)
    }

    /// The file at `path` has `entry`'s size and SHA-256.
    static func check(_ entry: BackupManifest.Entry, at path: String) throws {
        guard let info = BackupFiles.stat(path) else { throw BackupError("missing_file", "\(path) is missing from the backup") }
        guard info.size == entry.size else {
            throw BackupError("corrupt_file", "\(path) has \(info.size) bytes; the manifest says \(entry.size)")
        }
        guard let actual = try BackupFiles.hash(path), actual.sha256 == entry.sha256 else {
            throw BackupError("corrupt_file", "\(path) does not match its SHA-256 in the manifest")
        }
    }
}

/// Quoting for paths read from a manifest (one line, cut short).
enum MessageQuoting {
    static func quoted(_ text: String) -> String {
        let clean = String(text.unicodeScalars.filter { $0.properties.generalCategory != .control }.prefix(120).map(Character.init))
        return "\"\(clean)\""
    }
}
