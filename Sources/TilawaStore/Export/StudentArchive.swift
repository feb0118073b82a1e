import Foundation
import GRDB

/// A student's own archive (DESIGN §12): every recording of theirs (Ogg, and MP4 where made),
/// the coaches' replies to them with notes, the marks on them, the questions and answers under
/// the replies — with `index.json` (its JSON Schema is `docs/export/index.schema.json`) and an
/// `index.html` that plays them offline. Streamed as a zip (`ZipStreamWriter`); entry names
/// are made of ids only, never of names or titles, so nothing a roster holds can steer a path.
/// Only this student's rows are read: their submissions, the replies and comments on those,
/// the marks on those.
public struct StudentArchive: Sendable {
    /// What the archive is made of, read in one transaction.
    public struct Contents: Sendable {
        public var student: StudentRecord
        public var submissions: [SubmissionRecord]
        public var feedback: [FeedbackRecord]
        public var comments: [CommentRecord]
        public var annotations: [AnnotationRecord]
        public var coachNames: [String: String]
        public var semesterNames: [String: String]
        /// Every consent of theirs to the recording policy, oldest first (DESIGN §16).
        public var consents: [ConsentRecord] = []
    }

    public let contents: Contents
    public let artifacts: ArtifactStore
    public let generatedAt: Date

    /// The archive of `studentId`, or nil for an unknown student.
    public static func load(_ database: AppDatabase, studentId: String, artifacts: ArtifactStore, now: Date) async throws -> StudentArchive? {
        let contents: Contents? = try await database.engine.read { db in
            guard let student = try StudentRecord.fetchOne(db, key: studentId) else { return nil }
            let submissions = try SubmissionRecord.fetchAll(db, where: "studentId = ? AND audioPath IS NOT NULL", [studentId], orderBy: "receivedAt")
            let ids = submissions.map(\.id)
            let feedback = try FeedbackRecord.fetchAll(
                db, where: SQLArguments.inList("submissionId", count: ids.count) + " AND state = 'ready'", SQLArguments(ids), orderBy: "receivedAt")
            let comments = try CommentRecord.fetchAll(
                db, where: SQLArguments.inList("feedbackId", count: feedback.count) + " AND studentId = ?",
                SQLArguments(feedback.map(\.id)) + [studentId], orderBy: "createdAt, rowid")
            let annotations = try AnnotationRecord.fetchAll(
                db, where: SQLArguments.inList("submissionId", count: ids.count) + " AND studentId = ?", SQLArguments(ids) + [studentId],
                orderBy: "atSeconds")
            let coaches = Dictionary(try Row.fetchAll(db, sql: "SELECT id, name FROM coach").map { ($0["id"] as String, $0["name"] as String) },
                                     uniquingKeysWith: { first, _ in first })
            let semesters = Dictionary(try Row.fetchAll(db, sql: "SELECT id, name FROM semester").map { ($0["id"] as String, $0["name"] as String) },
                                       uniquingKeysWith: { first, _ in first })
            return Contents(student: student, submissions: submissions, feedback: feedback, comments: comments,
                            annotations: annotations, coachNames: coaches, semesterNames: semesters,
                            consents: try ConsentRecord.fetchAll(db, where: "studentId = ?", [studentId], orderBy: "givenAt, id"))
        }
        return contents.map { StudentArchive(contents: $0, artifacts: artifacts, generatedAt: now) }
    }

    /// Adds an artifact's bytes as `name`; false when it is gone (a withdrawal meanwhile) or its
    /// path could name a file outside the store. From a remote store, through a fetched copy.
    private func add(_ zip: inout ZipStreamWriter, name: String, artifact: String, modified: Date) async throws -> Bool {
        guard let copy = try await artifacts.readableCopy(of: artifact) else { return false }
        defer { copy.release() }
        return try await zip.addFile(name: name, path: copy.path, modified: modified)
    }

    /// Writes the archive to `emit`; the index lists what was written (a file gone meanwhile,
    /// a withdrawal, is left out and not listed).
    public func write(zip64Threshold: UInt64 = 0xFFFF_FFFF, emit: @escaping ZipStreamWriter.Emit) async throws {
        var zip = ZipStreamWriter(zip64Threshold: zip64Threshold, emit: emit)
        var index = ArchiveIndex(format: 1, generatedAt: generatedAt,
                                 student: .init(id: contents.student.id, name: contents.student.name), recordings: [],
                                 consents: contents.consents.map(ArchiveIndex.Consent.init))
        let repliesBySubmission = Dictionary(grouping: contents.feedback, by: \.submissionId)
        let commentsByReply = Dictionary(grouping: contents.comments, by: \.feedbackId)
        let marksBySubmission = Dictionary(grouping: contents.annotations, by: \.submissionId)
        for submission in contents.submissions {
            guard let audio = submission.audioPath,
                  try await add(&zip, name: "recordings/\(submission.id).ogg", artifact: audio, modified: submission.receivedAt)
            else { continue }
            var recording = ArchiveIndex.Recording(
                id: submission.id, kind: submission.kind.rawValue, week: submission.week, title: submission.title,
                semester: contents.semesterNames[submission.semesterId] ?? submission.semesterId, receivedAt: submission.receivedAt,
                late: submission.late, audio: "recordings/\(submission.id).ogg", audioMP4: nil, marks: [], replies: [])
            if let mp4 = ArtifactStore.variants(ofAudio: audio).first(where: { $0.hasSuffix(".m4a") }),
               try await add(&zip, name: "recordings/\(submission.id).m4a", artifact: mp4, modified: submission.receivedAt) {
                recording.audioMP4 = "recordings/\(submission.id).m4a"
            }
            for mark in marksBySubmission[submission.id] ?? [] {
                var clip: String?
                if let path = mark.audioPath, try await add(&zip, name: "marks/\(mark.id).ogg", artifact: path, modified: mark.createdAt) {
                    clip = "marks/\(mark.id).ogg"
                }
                recording.marks.append(.init(id: mark.id, atSeconds: mark.atSeconds, surah: mark.surah, ayah: mark.ayah,
                                             kind: mark.kind.rawValue, text: mark.text, audio: clip))
            }
            for reply in repliesBySubmission[submission.id] ?? [] {
                guard let path = reply.audioPath,
                      try await add(&zip, name: "replies/\(reply.id).ogg", artifact: path, modified: reply.receivedAt) else { continue }
                var entry = ArchiveIndex.Reply(id: reply.id, coach: contents.coachNames[reply.coachId], receivedAt: reply.receivedAt,
                                               notes: reply.notes, result: reply.result?.rawValue, audio: "replies/\(reply.id).ogg", thread: [])
                for comment in commentsByReply[reply.id] ?? [] {
                    var clip: String?
                    if let path = comment.audioPath,
                       try await add(&zip, name: "thread/\(comment.id).ogg", artifact: path, modified: comment.createdAt) {
                        clip = "thread/\(comment.id).ogg"
                    }
                    entry.thread.append(.init(id: comment.id, author: comment.author.rawValue, text: comment.text,
                                              createdAt: comment.createdAt, audio: clip))
                }
                recording.replies.append(entry)
            }
            index.recordings.append(recording)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        encoder.keyEncodingStrategy = .convertToSnakeCase
        try await zip.add(name: "index.json", data: Array(try encoder.encode(index)), modified: generatedAt)
        try await zip.add(name: "index.html", data: Array(ArchivePage.html(index).utf8), modified: generatedAt)
        try await zip.finish()
    }
}

/// `index.json` (schema: `docs/export/index.schema.json`).
struct ArchiveIndex: Encodable {
    struct Student: Encodable { var id: String; var name: String }
    struct Mark: Encodable {
        var id: String; var atSeconds: Double; var surah: Int?; var ayah: Int?; var kind: String; var text: String; var audio: String?
    }
    struct Comment: Encodable { var id: String; var author: String; var text: String; var createdAt: Date; var audio: String? }
    struct Reply: Encodable {
        var id: String; var coach: String?; var receivedAt: Date; var notes: String?; var result: String?; var audio: String
        var thread: [Comment]
    }
    struct Recording: Encodable {
        var id: String; var kind: String; var week: Int?; var title: String?; var semester: String; var receivedAt: Date
        var late: Bool; var audio: String; var audioMP4: String?; var marks: [Mark]; var replies: [Reply]

        enum CodingKeys: String, CodingKey {
            case id, kind, week, title, semester, receivedAt, late, audio, marks, replies
            case audioMP4 = "audioMp4"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(kind, forKey: .kind)
            try container.encode(week, forKey: .week)
            try container.encode(title, forKey: .title)
            try container.encode(semester, forKey: .semester)
            try container.encode(receivedAt, forKey: .receivedAt)
            try container.encode(late, forKey: .late)
            try container.encode(audio, forKey: .audio)
            try container.encode(audioMP4, forKey: .audioMP4)
            try container.encode(marks, forKey: .marks)
            try container.encode(replies, forKey: .replies)
        }
    }
    var format: Int
    var generatedAt: Date
    var student: Student
    var recordings: [Recording]
    /// The student's consents to the recording policy, oldest first (`ArchiveIndex+Consents.swift`).
    var consents: [Consent]
}

/// `index.html`: the archive's recordings, replies and questions, playable offline (relative
/// links into the archive). Every text is escaped; no script.
enum ArchivePage {
    static func html(_ index: ArchiveIndex) -> String {
        func e(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        }
        func when(_ date: Date) -> String { date.formatted(.iso8601.year().month().day()) }
        func player(_ ogg: String, _ mp4: String?) -> String {
            "<audio controls preload=\"none\">" + (mp4.map { "<source src=\"\(e($0))\" type=\"audio/mp4\">" } ?? "")
                + "<source src=\"\(e(ogg))\" type=\"audio/ogg; codecs=opus\"></audio>"
        }
        var body = ""
        for recording in index.recordings {
            let what = recording.week.map { "Week \($0)" } ?? (recording.kind == "eoc" ? "End-of-course assessment" : "Placement assessment")
            body += "<section><h2>\(e(what))\(recording.title.map { " — " + e($0) } ?? "")</h2>"
            body += "<p class=\"meta\">\(e(recording.semester)), recorded \(when(recording.receivedAt))\(recording.late ? ", late" : "")</p>"
            body += player(recording.audio, recording.audioMP4)
            if !recording.marks.isEmpty {
                body += "<ul class=\"marks\">"
                for mark in recording.marks {
                    let place = mark.surah.map { "ayah \($0):\(mark.ayah ?? 0)" } ?? String(format: "%.1f s", mark.atSeconds)
                    body += "<li>\(e(place)) (\(e(mark.kind.replacingOccurrences(of: "_", with: " ")))): \(e(mark.text))"
                    if let clip = mark.audio { body += " " + player(clip, nil) }
                    body += "</li>"
                }
                body += "</ul>"
            }
            for reply in recording.replies {
                body += "<div class=\"reply\"><h3>Reply from \(e(reply.coach ?? "your coach")), \(when(reply.receivedAt))</h3>"
                body += player(reply.audio, nil)
                if let notes = reply.notes, !notes.isEmpty { body += "<p>\(e(notes))</p>" }
                if let result = reply.result { body += "<p><strong>Result: \(e(result))</strong></p>" }
                for comment in reply.thread {
                    body += "<p class=\"\(comment.author)\">\(comment.author == "student" ? "You" : "Coach"): \(e(comment.text))"
                    if let clip = comment.audio { body += " " + player(clip, nil) }
                    body += "</p>"
                }
                body += "</div>"
            }
            body += "</section>\n"
        }
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(e(index.student.name)) — recitations</title>
            <style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:1rem auto;padding:0 1rem}
            section{border-bottom:1px solid #ddd;padding:1rem 0}audio{width:100%}.meta{color:#555}
            .reply{margin-left:1rem;border-left:3px solid #2a7;padding-left:1rem}.student{color:#246}</style></head>
            <body><h1>\(e(index.student.name))</h1>
            <p>Your recitations and your coaches' replies, exported \(when(index.generatedAt)). Open this page from the unzipped folder to listen offline; <code>index.json</code> holds the same in data.</p>
            \(body)</body></html>
            """
    }
}
