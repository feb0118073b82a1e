import ArgumentParser
import Foundation
import TilawaDaemon
import TilawaStore

/// `tilawa roster import FILE…`: upserts programme.yaml and students.csv files, all or nothing.
struct RosterImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import programme files (program.yaml, students.csv); idempotent, all or nothing.",
        discussion: "Exit status: 0 imported, 65 a file is invalid (nothing was written)."
    )

    @Argument(help: "Programme files: .yaml/.yml (semesters, coaches, curriculum) and .csv (students).")
    var files: [String]

    @Option(name: .customLong("allow-erased"),
            help: "Re-admit this erased student id as a new student, with no history (repeat for several).")
    var allowErased: [String] = []

    @OptionGroup var config: ConfigurationOptions

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("Name at least one programme file.") }
    }

    func run() throws {
        var program: ProgramFile?
        var students: [StudentRow] = []
        var studentsSource = ""
        var programPath = ""
        var photos: [String: CoachPhoto] = [:]
        do {
            // Parse everything before touching the database: one bad file writes nothing.
            for file in files {
                try CommandLineOutput.requireReadableFile(file)
                let kind = try RosterFileKind.detect(path: file)
                guard let data = FileManager.default.contents(atPath: file),
                      let text = String(data: data, encoding: .utf8) else {
                    throw RosterError(kind == .program ? .malformedYAML : .malformedCSV, source: file, line: nil, "the file is not UTF-8 text")
                }
                switch kind {
                case .program:
                    guard program == nil else {
                        throw RosterError(.unsupportedFile, source: file, line: nil, "only one programme file per import")
                    }
                    program = try ProgramFile.parse(text, source: file)
                    programPath = file
                    // Each coach's photo, checked by content before anything is written.
                    for coach in program?.coaches ?? [] {
                        photos[coach.id.rawValue] = try CoachPhoto.load(for: coach, programPath: programPath)
                    }
                case .students:
                    students += try StudentsCSV.parse(text, source: file)
                    studentsSource = file
                }
            }
        } catch let error as RosterError {
            throw CommandLineOutput.fail(code: error.code.rawValue, message: error.message, exit: ExitStatus.dataRejected)
        }
        let runtime = try config.runtime()
        do {
            // Photos go into the state directory first, named by content: a failed import
            // leaves a file no coach names, removed by the next import.
            var stored: [String: StoredPhoto] = [:]
            for (coach, photo) in photos {
                stored[coach] = StoredPhoto(path: try photo.store(in: runtime.stateDirectory), mediaType: photo.mediaType, sha256: photo.sha256)
            }
            let summary = try runtime.database.importRoster(
                program: program, students: students, studentsSource: studentsSource, photos: stored,
                allowErased: Set(allowErased), now: runtime.clock())
            if program != nil { CoachPhoto.removeUnused(in: runtime.stateDirectory, kept: try runtime.database.coachPhotoPaths()) }
            print("imported \(summary.semesters) semesters, \(summary.coaches) coaches, \(summary.levels) levels "
                + "(\(summary.curriculumWeeks) weeks), \(summary.students) students")
            for skipped in summary.skippedErased {
                let erased = skipped.subjectOf ?? skipped.id
                let who = skipped.subjectOf.map { "student \(skipped.id) signs in as student \($0), who was erased" }
                    ?? "student \(skipped.id) was erased"
                print("skipped \(studentsSource):\(skipped.line): \(who); an erasure is final, so the row was not imported "
                    + "(--allow-erased \(erased) re-admits them as a new student, with no history)")
            }
            for row in summary.readmitted {
                let kept = row.formerRecords.map { "; what was left of the erased student is kept apart as \($0)" } ?? ""
                print("re-admitted \(studentsSource):\(row.line): student \(row.id) as a new student (erased as \(row.erasedId))\(kept)")
            }
            for row in summary.joined {
                print("joined \(studentsSource):\(row.line): student \(row.id) is \(row.studentId), whom the identity provider "
                    + "provisioned with the same subject; the row's level, coach and semester went to \(row.studentId)")
            }
            let used = Set(summary.readmitted.map(\.erasedId))
            for id in allowErased where !used.contains(id) {
                CommandLineOutput.warn("--allow-erased \(id): no row of this import names an erased student \(id) or their subject; nothing was re-admitted for it")
            }
        } catch let error as RosterError {
            throw CommandLineOutput.fail(code: error.code.rawValue, message: error.message, exit: ExitStatus.dataRejected)
        } catch {
            throw CommandLineOutput.fail(error)
        }
    }
}
