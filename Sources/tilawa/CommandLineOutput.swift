import ArgumentParser
import Foundation
import GRDB
import TilawaDaemon
import TilawaPostgres
import TilawaStore

/// Where the command writes: results on stdout, one-line errors on stderr.
enum CommandLineOutput {
    /// Prints `tilawa: <code>: <message>` on stderr and returns the exit code to throw.
    static func fail(code: String, message: String, exit status: Int32) -> ExitCode {
        FileHandle.standardError.write(Data("tilawa: \(code): \(message)\n".utf8))
        return ExitCode(status)
    }

    /// Prints `tilawa: warning: <message>` on stderr: the command went on.
    static func warn(_ message: String) {
        FileHandle.standardError.write(Data("tilawa: warning: \(message)\n".utf8))
    }

    /// Fails with `no_input` (exit 66) when `path` is not a readable regular file: a typo in a
    /// path is the operator's mistake, not a rejected recording.
    static func requireReadableFile(_ path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
              FileManager.default.isReadableFile(atPath: path) else {
            throw fail(code: "no_input", message: "cannot read \(path): no such readable file", exit: ExitStatus.noInput)
        }
    }

    /// Prints a runtime failure as one line and returns the exit code for it.
    static func fail(_ error: any Error) -> ExitCode {
        switch error {
        case let error as ExitCode:
            return error
        case let error as StoreError:
            if case .storageFull = error {
                return fail(code: error.code, message: "the disk is full: \(error.description)", exit: cannotCreate)
            }
            switch error {
            case .unavailable, .busy:
                // 69, not 75: `ingest` says "attempt limit" with 75.
                return fail(code: error.code, message: error.description, exit: ExitStatus.unavailable)
            default:
                break
            }
            return fail(code: error.code, message: error.description, exit: ExitStatus.software)
        case let error as ConfigurationError:
            return fail(code: error.code, message: error.description, exit: ExitStatus.configuration)
        case let error as DatabaseError:
            return fail(code: "database_error", message: error.message ?? "\(error)", exit: ExitStatus.software)
        case let error as PostgresStatementError:
            return fail(code: "database_error", message: error.description, exit: ExitStatus.software)
        default:
            return fail(code: "internal_error", message: "\(error)", exit: ExitStatus.software)
        }
    }

    private static let cannotCreate = ExitStatus.cannotCreate

    /// Prints a value as pretty, key-sorted JSON on stdout.
    static func printJSON(_ value: some Encodable) throws {
        let data = try APIJSON.encoder(pretty: true).encode(value)
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }

    /// Prints aligned `label  value` rows on stdout.
    static func printRows(_ rows: [(String, String)]) {
        let width = rows.map(\.0.count).max() ?? 0
        for (label, value) in rows {
            print(label.padding(toLength: width + 2, withPad: " ", startingAt: 0) + value)
        }
    }
}
