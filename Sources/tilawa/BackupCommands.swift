import ArgumentParser
import Foundation
import TilawaDaemon
import TilawaStore

/// `tilawa backup …`: consistent copies of the state directory, and their verification.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Back up the state directory while the daemon runs, and verify a backup.",
        subcommands: [BackupCreateCommand.self, BackupVerifyCommand.self]
    )

    /// Exit status of a backup error: 66 not a backup, 65 corrupt, 73 cannot write, 75 busy, 78 artifacts in an S3 store
    /// or the database on PostgreSQL.
    static func exit(for error: BackupError) -> Int32 {
        switch error.code {
        case "not_a_backup", "no_ledger": ExitStatus.noInput
        case "target_not_empty", "cannot_write": ExitStatus.cannotCreate
        case "artifacts_remote", "database_remote": ExitStatus.configuration
        case "backup_running": 75
        default: ExitStatus.dataRejected
        }
    }

    static func fail(_ error: any Error) -> ExitCode {
        if let error = error as? BackupError {
            return CommandLineOutput.fail(code: error.code, message: error.message, exit: exit(for: error))
        }
        return CommandLineOutput.fail(error)
    }
}

/// `tilawa backup create DIR [--previous DIR]`.
struct BackupCreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Copy the database and every file it references into DIR (new or empty), manifest last.",
        discussion: """
            Safe while the daemon runs: one database snapshot, and every file it references \
            taken before any is removed. With --previous, files unchanged since that backup are \
            hard-linked from it. Not included: unfinished resumable uploads, the drop folder, \
            secrets (the manifest names the keys a restore needs). Exit status: 0 done, 73 DIR \
            not empty or not writable, 75 another backup is running, 66 --previous is not a backup (no manifest: an interrupted one), 65 its manifest is unreadable, 78 artifacts are kept in an S3 store (back up with the store's and the database's own tools).
            """
    )

    @Argument(help: "Where to write the backup (absent, or an empty directory).") var directory: String
    @Option(help: "A whole earlier backup to hard-link unchanged files from.") var previous: String?
    @Flag(help: "Do not re-read the backup to verify it (status then says it was not verified).") var noVerify = false
    @OptionGroup var config: ConfigurationOptions

    func run() throws {
        let runtime = try config.runtime()
        let maker = BackupMaker(database: runtime.database, stateDirectory: runtime.stateDirectory)
        let started = Date()
        do {
            let now = runtime.clock()
            let report = try maker.create(at: directory, previous: previous, now: now)
            if !noVerify { _ = try BackupVerifier.verify(directory) }
            let absolute = URL(fileURLWithPath: directory, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).standardizedFileURL.path
            try runtime.database.recordBackup(path: absolute, at: now, verified: !noVerify)
            let seconds = Date().timeIntervalSince(started)
            print("backup \(directory): \(report.files) files, \(report.bytes) bytes copied, \(report.linked) linked (\(report.linkedBytes) bytes), database \(report.databaseBytes) bytes, \(String(format: "%.1f", seconds)) s\(noVerify ? "" : ", verified")")
            // The first twenty by name; every one is in the manifest (`missing_at_source`).
            for path in report.missing.prefix(20) {
                CommandLineOutput.warn("\(path) was already missing from the state directory")
            }
            if report.missing.count > 20 {
                CommandLineOutput.warn("and \(report.missing.count - 20) more files missing from the state directory (all listed in \(directory)/manifest.json, missing_at_source)")
            }
        } catch {
            throw BackupCommand.fail(error)
        }
    }
}

/// `tilawa backup verify DIR`.
struct BackupVerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Re-hash every file of a backup and check every reference of its database.",
        discussion: "Exit status: 0 whole, 66 not a backup (no manifest), 65 corrupt (the file is named)."
    )

    @Argument(help: "The backup.") var directory: String

    func run() throws {
        do {
            let report = try BackupVerifier.verify(directory)
            print("backup \(directory) of \(report.createdAt.formatted(.iso8601)): whole, \(report.files) files, \(report.bytes) bytes")
        } catch {
            throw BackupCommand.fail(error)
        }
    }
}

/// `tilawa restore DIR --state-dir NEW`.
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Make a new state directory from a backup, verified first, ready for a daemon.",
        discussion: """
            NEW must be absent or empty. Running encode jobs are queued again, in-flight \
            idempotency keys and unfinished uploads dropped (their clients retry), and the \
            database marked as restored. Secrets are not in a backup: the output names the keys \
            to supply. A backup of an older release is migrated; one of a newer release is \
            refused. Students erased since the backup are erased again from the ledger: the \
            backup's own, every backup's beside it, and --erasures (the live installation's \
            state directory, or a file from `tilawa erase --list`); give it, or an erasure newer \
            than every backup is undone. Exit status: 0 restored, 66 not a backup or no ledger at \
            --erasures, 65 corrupt, made by a newer release, or a bad line in the ledger file, 73 \
            NEW not empty.
            """
    )

    @Argument(help: "The backup.") var directory: String
    @Option(name: .customLong("state-dir"), help: "The new state directory.") var stateDir: String
    @Option(help: "The live installation's erasure ledger: its state directory, or a file of ids from `tilawa erase --list`.")
    var erasures: String?

    func run() throws {
        do {
            let ledger = try erasures.map(BackupRestorer.readLedger(at:)) ?? []
            let report = try BackupRestorer.restore(from: directory, to: stateDir, erasures: ledger, now: Date())
            print("restored \(report.files) files into \(stateDir); \(report.jobsRequeued) encode jobs queued again, \(report.uploadsDropped) unfinished uploads and \(report.keysDropped) in-flight idempotency keys dropped")
            print("not in the backup, supply them: \(report.secretsNotIncluded.joined(separator: ", "))")
            if !report.erasedAgain.isEmpty {
                print("erased again from the ledger (erased after this backup was made): \(report.erasedAgain.joined(separator: ", "))")
            }
            if erasures == nil {
                print("no --erasures given: a student erased after this backup (and after every backup beside it) is back; "
                    + "restore again with --erasures LIVE_STATE_DIR (or a file from `tilawa erase --list`) unless none was")
            }
        } catch {
            throw BackupCommand.fail(error)
        }
    }
}
