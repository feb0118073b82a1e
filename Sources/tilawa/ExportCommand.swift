import ArgumentParser
import Foundation
import Glibc
import TilawaCore
import TilawaDaemon
import TilawaStore

/// `tilawa export --student ID FILE`: the student's own archive (as `GET /v1/students/{id}/export`).
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a student's archive: their recordings, the replies, marks and questions, index.json and index.html.",
        discussion: """
            The zip is written to a temporary name beside FILE and renamed when whole. \
            Exit status: 0 written, 64 usage, 73 cannot write FILE, 77 unknown student.
            """
    )

    @Option(help: "The student's id.") var student: String
    @Argument(help: "The zip to write.") var file: String
    @OptionGroup var config: ConfigurationOptions

    func validate() throws {
        guard Identifier.isValid(student) else { throw ValidationError("\"\(student)\" is not a valid student id.") }
    }

    func run() async throws {
        let runtime = try config.runtime()
        let archive: StudentArchive
        do {
            guard let loaded = try await StudentArchive.load(runtime.database, studentId: student,
                                                             artifacts: runtime.stateDirectory.artifactStore, now: runtime.clock()) else {
                throw CommandLineOutput.fail(code: "unknown_student", message: "No student has the id \"\(student)\".", exit: ExitStatus.refusedByRule)
            }
            archive = loaded
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw CommandLineOutput.fail(error)
        }
        let temporary = file + ".partial"
        guard FileManager.default.createFile(atPath: temporary, contents: nil), let handle = FileHandle(forWritingAtPath: temporary) else {
            throw CommandLineOutput.fail(code: "cannot_write", message: "cannot create \(temporary)", exit: ExitStatus.cannotCreate)
        }
        do {
            try await archive.write { bytes in try handle.write(contentsOf: bytes) }
            try handle.synchronize()
            try handle.close()
            guard rename(temporary, file) == 0 else {
                throw CommandLineOutput.fail(code: "cannot_write", message: "cannot rename \(temporary) to \(file)", exit: ExitStatus.cannotCreate)
            }
        } catch {
            try? handle.close()
            unlink(temporary)
            if let exit = error as? ExitCode { throw exit }
            throw CommandLineOutput.fail(code: "cannot_write", message: "cannot write \(file): \(error)", exit: ExitStatus.cannotCreate)
        }
        print(file)
    }
}
