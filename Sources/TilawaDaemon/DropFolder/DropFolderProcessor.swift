import Crypto
import Foundation
import TilawaAudio
import TilawaCore
import TilawaStore

/// Takes one complete file from `<dropbox>/<coach>/`, pairs it, runs it through the feedback
/// intake, and moves it (with its notes) to `processed/` or to `rejected/` beside a
/// `<file>.reason.txt` that says why in one sentence (DESIGN §5).
///
/// Exactly once: a reply's content hash is committed with the reply, before the file moves;
/// after a crash in between, the next pass finds the hash and only finishes the move.
struct DropFolderProcessor: Sendable {
    let runtime: TilawaRuntime
    /// Largest notes file accepted (DESIGN §5: 8 KiB).
    static let maximumNotesBytes = 8 * 1024

    /// What happened to one file.
    enum Outcome: Equatable, Sendable {
        case processed(feedbackId: String?)
        case rejected(reason: String)
        /// Left where it is (a notes file whose reply has not arrived).
        case skipped
    }

    func process(path: String, coachId: String) throws -> Outcome {
        let url = URL(fileURLWithPath: path)
        let name = url.lastPathComponent
        if DropFileName.isSidecar(name) || DropFileName.isTemporary(name) { return .skipped }
        let directory = url.deletingLastPathComponent()

        guard Identifier(rawValue: coachId) != nil, try runtime.database.coachExists(id: coachId) else {
            return try reject(url, reason: "This folder (\(coachId)) does not belong to a coach Tilawa knows — ask operations which folder is yours.", sha256: nil, coachId: coachId)
        }
        let parsed: DropFileName
        do {
            parsed = try DropFileName(parsing: name)
        } catch {
            return try reject(url, reason: error.reason, sha256: nil, coachId: coachId)
        }
        let sidecar = directory.appendingPathComponent(parsed.sidecarName)
        // File names are case-insensitive (DESIGN §5): `s1042_W08.m4a` is S1042's, if only one matches.
        let student = try runtime.database.resolveStudentId(parsed.studentID.rawValue) ?? parsed.studentID.rawValue
        // The same reply for the same coach, student and slot is one reply, whatever it is
        // called and however often it is dropped; the same audio sent to two students is two.
        let sha256 = try Self.sha256(of: path, salt: "\(coachId)|\(student)|\(parsed.slot)")

        if let earlier = try runtime.database.dropFile(sha256: sha256), earlier.outcome == "processed" {
            // Either a crash came between recording this reply and moving it, or the coach
            // dropped the same reply again: in both cases it is done; finish the move.
            try move(url, sidecar: sidecar, to: "processed")
            return .processed(feedbackId: earlier.feedbackId)
        }

        var notes: String?
        if FileManager.default.fileExists(atPath: sidecar.path) {
            guard let data = FileManager.default.contents(atPath: sidecar.path), data.count <= Self.maximumNotesBytes,
                  let text = String(data: data, encoding: .utf8) else {
                return try reject(url, reason: "The notes file \(parsed.sidecarName) must be UTF-8 text of at most 8 KiB — shorten it or save it as UTF-8, then drop both files again.",
                                  sha256: sha256, coachId: coachId, sidecar: sidecar)
            }
            notes = text.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        let staged = runtime.stateDirectory.newStagingPath(extension: parsed.fileExtension)
        do {
            try FileManager.default.copyItem(atPath: path, toPath: staged)
        } catch {
            throw StoreError.io("cannot copy \(path) to staging: \(error.localizedDescription)")
        }
        let outcome = try runtime.feedbackIntake.submit(
            stagedPath: staged, coachId: coachId, target: .slot(student: student, slot: parsed.slot),
            notes: notes, origin: .dropbox, fileExtension: parsed.fileExtension, dropFile: (sha256, name))
        switch outcome {
        case let .accepted(feedback, _):
            try move(url, sidecar: sidecar, to: "processed")
            return .processed(feedbackId: feedback.id)
        case let .rejected(verdict):
            let message = verdict.primaryRejection?.message ?? "The recording could not be used."
            return try reject(url, reason: "This reply could not be used: \(message)", sha256: sha256, coachId: coachId, sidecar: sidecar)
        case let .refused(refusal):
            return try reject(url, reason: refusal.message, sha256: sha256, coachId: coachId, sidecar: sidecar)
        }
    }

    private func reject(_ url: URL, reason: String, sha256: String?, coachId: String, sidecar: URL? = nil) throws -> Outcome {
        if let sha256 {
            try runtime.database.recordRejectedDropFile(sha256: sha256, coachId: coachId, fileName: url.lastPathComponent,
                                                        reason: reason, at: runtime.clock())
        }
        let moved = try move(url, sidecar: sidecar, to: "rejected")
        let reasonFile = moved.appendingPathExtension("reason.txt")
        try Data((reason + "\n").utf8).write(to: reasonFile, options: .atomic)
        return .rejected(reason: reason)
    }

    /// Moves the file (and its notes) into `folder/`, never overwriting: `name-2.ext`, …
    @discardableResult
    private func move(_ url: URL, sidecar: URL?, to folder: String) throws -> URL {
        let target = url.deletingLastPathComponent().appendingPathComponent(folder)
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        let destination = Self.freeName(in: target, for: url.lastPathComponent)
        guard rename(url.path, destination.path) == 0 else {
            throw StoreError.io("cannot move \(url.path) to \(destination.path): \(String(cString: strerror(errno)))")
        }
        if let sidecar, FileManager.default.fileExists(atPath: sidecar.path) {
            let stemSuffix = destination.deletingPathExtension().lastPathComponent
            _ = rename(sidecar.path, target.appendingPathComponent(stemSuffix + ".txt").path)
        }
        return destination
    }

    static func freeName(in directory: URL, for name: String) -> URL {
        var candidate = directory.appendingPathComponent(name)
        let stem = (name as NSString).deletingPathExtension, ext = (name as NSString).pathExtension
        var counter = 2
        while FileManager.default.fileExists(atPath: candidate.path) {
            candidate = directory.appendingPathComponent(ext.isEmpty ? "\(stem)-\(counter)" : "\(stem)-\(counter).\(ext)")
            counter += 1
        }
        return candidate
    }

    /// SHA-256 of `salt` (what the reply is for) followed by the file's content.
    static func sha256(of path: String, salt: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw StoreError.io("cannot read \(path)") }
        defer { try? handle.close() }
        var hasher = SHA256()
        hasher.update(data: Data(salt.utf8))
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
