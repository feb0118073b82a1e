import Crypto
import Foundation
import TilawaAudio
import TilawaCore
import TilawaStore

#if canImport(Glibc)
import Glibc
#endif

/// Takes one settled entry from `<dropbox>/<coach>/`, pairs it, runs it through the feedback
/// intake, and moves it (with its notes) to `processed/` or to `rejected/` beside a
/// `<file>.reason.txt` that says why in one sentence (DESIGN §5).
///
/// Everything goes through the coach folder's descriptor (`DirectoryDescriptor`): the reply
/// and its notes are opened with `O_NOFOLLOW` and must be regular files with one link; moves
/// stay inside the coach's own folder and never replace anything. An entry that is not a
/// plain file, or whose name is not UTF-8, is rejected unread.
///
/// Exactly once: a reply's content hash is committed with the reply, before the file moves;
/// after a crash in between, the next pass finds the hash and only finishes the move. Every
/// rejection is recorded once (by content, or by name, inode and mtime when the content is
/// never read), so `status` counts what the log reports.
struct DropFolderProcessor: Sendable {
    let runtime: TilawaRuntime

    /// What happened to one entry.
    enum Outcome: Equatable, Sendable {
        case processed(feedbackId: String?)
        case rejected(reason: String)
        /// Left where it is (gone, or a name the watcher never touches).
        case skipped
    }

    /// A coach folder whose `processed/` or `rejected/` is not a real directory.
    struct SuspendedFolder: Error, CustomStringConvertible {
        let folder: String
        let failure: FileSystemFailure
        var description: String { "\(folder) is not a plain folder: \(failure)" }
    }

    func process(_ entry: DropFolderScan.Entry) throws -> Outcome {
        let folder = entry.folder, name = entry.name
        guard !DropFolderScan.isIgnored(name), let info = folder.directory.status(of: name) else { return .skipped }
        let observed = SettleTracker.Observation(info)
        let entryKey = Self.entryKey(folder.coach, name, observed)

        guard let text = name.text else {
            return try reject(name, in: folder, as: name.invalidNameStandIn, key: entryKey,
                              reason: "This file's name is not valid text (UTF-8) — rename it like S1042_w08.m4a and drop it again.")
        }
        if let reason = Self.refusal(of: observed) {
            return try reject(name, in: folder, key: entryKey, reason: reason)
        }
        guard Identifier(rawValue: folder.coach) != nil, try runtime.database.coachExists(id: folder.coach) else {
            return try reject(name, in: folder, key: entryKey,
                              reason: "This folder (\(folder.coach)) does not belong to a coach Tilawa knows — ask operations which folder is yours.")
        }
        let parsed: DropFileName
        do {
            parsed = try DropFileName(parsing: text)
        } catch {
            return try reject(name, in: folder, key: entryKey, reason: error.reason)
        }
        let limit = runtime.configuration.dropbox.maxReplyBytes
        let tooLarge = "This reply is \(Self.megabytes(Int64(observed.size))); replies may be at most \(Self.megabytes(Int64(limit))) — export it shorter or in a compressed format (M4A, MP3), then drop it again."
        guard observed.size <= limit else {
            return try reject(name, in: folder, key: entryKey, reason: tooLarge)
        }

        // File names are case-insensitive (DESIGN §5): `s1042_W08.m4a` is S1042's, if only one matches.
        let student = try runtime.database.resolveStudentId(parsed.studentID.rawValue) ?? parsed.studentID.rawValue
        let sidecar = EntryName(parsed.sidecarName)
        let staged = runtime.stateDirectory.newStagedFile(extension: parsed.fileExtension)
        defer { staged.discard() }
        // The same reply for the same coach, student and slot is one reply, whatever it is
        // called and however often it is dropped; the same audio sent to two students is two.
        let copy: Copy
        do {
            copy = try Self.copy(name, in: folder.directory, to: staged.path, limit: limit, salt: "\(folder.coach)|\(student)|\(parsed.slot)\(parsed.result.map { "|\($0.rawValue)" } ?? "")")
        } catch let failure as FileSystemFailure where failure.errno == ELOOP || failure.errno == EINVAL {
            // Swapped for a link or a special file between the look and the open.
            return try reject(name, in: folder, key: entryKey, reason: "This is not a plain file — drop the recording itself, not a link to it.")
        }
        guard copy.bytes <= limit else {
            return try reject(name, in: folder, key: entryKey, reason: tooLarge)
        }

        if let earlier = try runtime.database.dropFile(sha256: copy.sha256), earlier.outcome == "processed" {
            // Either a crash came between recording this reply and moving it, or the coach
            // dropped the same reply again: in both cases it is done; finish the move.
            try move(name, sidecar: sidecar, in: folder, to: "processed")
            return .processed(feedbackId: earlier.feedbackId)
        }

        let notes: String?
        switch ReplyNotes.read(for: parsed, in: folder.directory) {
        case let .success(text): notes = text
        case let .failure(refusal):
            return try reject(name, in: folder, key: copy.sha256, reason: refusal.message, sidecar: sidecar)
        }

        let outcome = try runtime.feedbackIntake.submit(
            staged: staged, coachId: folder.coach, target: .slot(student: student, slot: parsed.slot),
            notes: notes, origin: .dropbox, fileExtension: parsed.fileExtension, dropFile: (copy.sha256, text), result: parsed.result)
        switch outcome {
        case let .accepted(feedback, _):
            try move(name, sidecar: sidecar, in: folder, to: "processed")
            return .processed(feedbackId: feedback.id)
        case let .rejected(verdict):
            let message = verdict.primaryRejection?.message ?? "The recording could not be used."
            return try reject(name, in: folder, key: copy.sha256, reason: "This reply could not be used: \(message)", sidecar: sidecar)
        case let .refused(refusal):
            return try reject(name, in: folder, key: copy.sha256, reason: refusal.message, sidecar: sidecar)
        }
    }

    /// Why an entry that is not a single-link regular file cannot be a reply, or nil.
    static func refusal(of observation: SettleTracker.Observation) -> String? {
        switch observation.kind {
        case S_IFREG where observation.links > 1:
            "This file is a hard link (the same file also appears elsewhere) — drop a copy of the recording instead."
        case S_IFREG:
            nil
        case S_IFLNK:
            "This is a shortcut (symbolic link), not a recording — drop the recording file itself."
        case S_IFDIR:
            "This is a folder, not a recording — drop each reply as a file directly in your folder."
        default:
            "This is not a regular file (a pipe, socket or device) — drop the recording file itself."
        }
    }

    /// The record key of a rejection decided without reading the content: coach, name, inode and mtime.
    static func entryKey(_ coach: String, _ name: EntryName, _ observation: SettleTracker.Observation) -> String {
        var hasher = SHA256()
        hasher.update(data: Data("entry|\(coach)|".utf8))
        hasher.update(data: Data(name.bytes))
        hasher.update(data: Data("|\(observation.inode)|\(observation.modified.timeIntervalSince1970)".utf8))
        return "entry-" + hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    private func reject(_ name: EntryName, in folder: DropFolderScan.CoachFolder, as target: EntryName? = nil, key: String,
                        reason: String, sidecar: EntryName? = nil) throws -> Outcome {
        try runtime.database.recordRejectedDropFile(sha256: key, coachId: folder.coach, fileName: (target ?? name).display,
                                                    reason: reason, at: runtime.clock())
        try move(name, sidecar: sidecar, in: folder, to: "rejected", as: target, reason: reason)
        return .rejected(reason: reason)
    }

    /// Moves the entry (and its notes) into `subfolder/` of its own coach folder, never
    /// replacing anything: `name`, `name-2`, … With a `reason`, `<moved name>.reason.txt` is
    /// created first, exclusively, so neither file can land on something already there.
    private func move(_ name: EntryName, sidecar: EntryName?, in folder: DropFolderScan.CoachFolder, to subfolder: String,
                      as target: EntryName? = nil, reason: String? = nil) throws {
        var opened: DirectoryDescriptor?
        if let failure = Self.attempt({ () throws(FileSystemFailure) in opened = try folder.directory.makeDirectory(EntryName(subfolder)) }) {
            throw SuspendedFolder(folder: "\(folder.coach)/\(subfolder)", failure: failure)
        }
        guard let destination = opened else { return }
        let base = target ?? name
        for counter in 1...10_000 {
            let candidate = counter == 1 ? base : Self.numbered(base, counter)
            let reasonFile = EntryName(bytes: candidate.bytes + Array(".reason.txt".utf8))
            if let reason, let failure = Self.attempt({ () throws(FileSystemFailure) in
                try destination.createExclusive(reasonFile, contents: Array((reason + "\n").utf8))
            }) {
                guard failure.errno == EEXIST else { throw failure }
                // A reason with no file beside it is this processor's own, left by a process
                // killed between writing it and moving the file: it goes (the entry itself, never
                // followed), and the file keeps its name instead of becoming `name-2`.
                guard destination.status(of: candidate) == nil else { continue }
                destination.remove(reasonFile)
                if let again = Self.attempt({ () throws(FileSystemFailure) in
                    try destination.createExclusive(reasonFile, contents: Array((reason + "\n").utf8))
                }) {
                    if again.errno == EEXIST { continue }
                    throw again
                }
            }
            if let failure = Self.attempt({ () throws(FileSystemFailure) in try folder.directory.move(name, to: destination, as: candidate) }) {
                if reason != nil { destination.remove(reasonFile) }
                if failure.errno == EEXIST { continue }
                throw failure
            }
            if let sidecar, folder.directory.status(of: sidecar) != nil {
                let stem = Self.stem(of: candidate)
                try? folder.directory.move(sidecar, to: destination, as: EntryName(bytes: stem.bytes + Array(".txt".utf8)))
            }
            return
        }
        throw FileSystemFailure(errno: EEXIST, operation: "move", name: "\(folder.coach)/\(name.display)")
    }

    /// The failure `body` threw, or nil.
    static func attempt(_ body: () throws(FileSystemFailure) -> Void) -> FileSystemFailure? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    /// `stem-N.ext` (or `name-N` without an extension).
    static func numbered(_ name: EntryName, _ counter: Int) -> EntryName {
        let stem = stem(of: name)
        let ext = name.bytes.dropFirst(stem.bytes.count)
        return EntryName(bytes: stem.bytes + Array("-\(counter)".utf8) + ext)
    }

    /// The name without its last `.ext` (a leading dot is not an extension).
    static func stem(of name: EntryName) -> EntryName {
        guard let dot = name.bytes.lastIndex(of: UInt8(ascii: ".")), dot > 0 else { return name }
        return EntryName(bytes: Array(name.bytes[..<dot]))
    }

    static func megabytes(_ bytes: Int64) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }

    struct Copy {
        let sha256: String
        let bytes: Int
    }

    /// Copies the entry into a new staging file while hashing `salt` and its content; stops
    /// after `limit + 1` bytes (a file still growing is too large, not read on and on).
    static func copy(_ name: EntryName, in directory: DirectoryDescriptor, to staged: String, limit: Int, salt: String) throws -> Copy {
        let source = try directory.openRegularFile(name)
        defer { close(source.descriptor) }
        let output = open(staged, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw StoreError.io("cannot create \(staged): \(String(cString: strerror(errno)))") }
        var hasher = SHA256()
        hasher.update(data: Data(salt.utf8))
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var total = 0
        do {
            defer { close(output) }
            while total <= limit {
                let count = buffer.withUnsafeMutableBytes { read(source.descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count < 0 { throw StoreError.io("cannot read \(directory.path): \(String(cString: strerror(errno)))") }
                if count == 0 { break }
                hasher.update(data: buffer[..<count])
                var written = 0
                while written < count {
                    let wrote = buffer[written..<count].withUnsafeBytes { write(output, $0.baseAddress, $0.count) }
                    if wrote < 0 && errno == EINTR { continue }
                    guard wrote > 0 else { throw StoreError.io("cannot write \(staged): \(String(cString: strerror(errno)))") }
                    written += wrote
                }
                total += count
            }
        } catch {
            unlink(staged)
            throw error
        }
        return Copy(sha256: hasher.finalize().map { String(format: "%02x", $0) }.joined(), bytes: total)
    }
}
