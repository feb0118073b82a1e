import ArgumentParser
import Foundation
import TilawaCore
import TilawaDaemon
import TilawaStore

/// `tilawa erase --student ID --confirm --reason R [--force] [--by NAME]` (DESIGN §12).
struct EraseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "erase",
        abstract: "Erase a student: their name, audio, replies to them, notes, questions; ids and counts stay.",
        discussion: """
            One transaction with its audit row; the files go after it. Refused while an \
            enrolment of theirs runs (its semester has not closed and they have not left) unless \
            --force. The erasure is kept in a ledger (ids only) that every later backup carries, \
            so restoring an older backup erases them again. Logs kept outside Tilawa (journald) \
            cannot be erased from here. A pending erasure request of the student's (tilawa \
            erasure-requests) is carried out by it and goes with the rest; the daemon carries one \
            out itself once due. `--list` prints the ledger. Exit status: 0 erased, 64 \
            usage (--confirm missing), 77 refused (unknown student, open_enrolment).
            """
    )

    @Option(help: "The student's id.") var student: String?
    @Flag(help: "Yes, erase: nothing of it can be undone.") var confirm = false
    @Flag(help: "Erase even while an enrolment runs.") var force = false
    @Flag(help: "Print the erasure ledger (one id per line) and exit.") var list = false
    @Option(help: "Why (kept in the audit log).") var reason: String?
    @Option(help: "Who is doing it (default: the Unix user).") var by: String?
    @Flag(help: "Print what was removed as JSON.") var json = false
    @OptionGroup var config: ConfigurationOptions

    func validate() throws {
        if list { return }
        guard let student, Identifier.isValid(student) else { throw ValidationError("Give the student with --student ID.") }
        guard confirm else { throw ValidationError("Erasing \(student) cannot be undone: add --confirm.") }
        guard let reason, !reason.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, reason.count <= 500 else {
            throw ValidationError("--reason must say why (1 to 500 characters): it is kept in the audit log.")
        }
    }

    func run() throws {
        let runtime = try config.runtime()
        if list {
            for id in try runtime.database.erasures().keys.sorted() { print(id) }
            return
        }
        guard let student, let reason else { return }
        let actor = by ?? BackOfficeOptions.unixUser()
        let outcome: Result<Erasure, ErasureRefusal>
        do {
            outcome = try runtime.database.erase(studentId: student, force: force, by: actor, reason: reason, now: runtime.clock())
        } catch {
            throw CommandLineOutput.fail(error)
        }
        switch outcome {
        case let .failure(refusal):
            throw CommandLineOutput.fail(code: refusal.code, message: refusal.message, exit: ExitStatus.refusedByRule)
        case let .success(erasure):
            for path in erasure.files { runtime.stateDirectory.artifactStore.remove(path) }
            if json {
                try CommandLineOutput.printJSON(ErasureResource(erasure))
            } else {
                print("erased \(student): \(erasure.recordings) recordings, \(erasure.replies) replies, \(erasure.files.count) files, \(erasure.events) undelivered events")
            }
        }
    }
}
