import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// The migration "annotations": moments of a recording a coach marked, with an optional
    /// spoken correction whose bytes count in the artifact total. Never edited once landed.
    static func migrateAnnotations(_ db: Database) throws {
        try db.create(table: "annotation") { t in
            t.primaryKey("id", .text)
            t.column("submissionId", .text).notNull().references("submission")
            t.column("studentId", .text).notNull()
            t.column("coachId", .text).notNull()
            t.column("atSeconds", .double).notNull()
            t.column("surah", .integer)
            t.column("ayah", .integer)
            t.column("kind", .text).notNull()
            t.column("text", .text).notNull()
            t.column("createdAt", .datetime).notNull()
            t.column("audioPath", .text)
            t.column("audioBytes", .integer)
            t.column("waveformPath", .text)
            t.column("durationSeconds", .double)
            t.column("outputGainDB", .double)
        }
        try db.create(index: "annotation_submission", on: "annotation", columns: ["submissionId", "createdAt"])
        // The history of a student's ayah, newest first.
        try db.create(index: "annotation_student_ayah", on: "annotation", columns: ["studentId", "surah", "ayah", "createdAt"])
        // The artifact sweep reads rows by month.
        try db.create(index: "annotation_created", on: "annotation", columns: ["createdAt"])
        let bytes = { (row: String) in "(CASE WHEN \(row).audioPath IS NULL THEN 0 ELSE COALESCE(\(row).audioBytes, 0) END)" }
        try db.execute(sql: """
            CREATE TRIGGER annotation_artifact_bytes_insert AFTER INSERT ON annotation
            WHEN \(bytes("NEW")) <> 0 BEGIN UPDATE meta SET value = value + \(bytes("NEW")) WHERE key = '\(artifactBytesKey)'; END;
            CREATE TRIGGER annotation_artifact_bytes_update AFTER UPDATE OF audioPath, audioBytes ON annotation
            WHEN \(bytes("NEW")) <> \(bytes("OLD"))
            BEGIN UPDATE meta SET value = value + \(bytes("NEW")) - \(bytes("OLD")) WHERE key = '\(artifactBytesKey)'; END;
            CREATE TRIGGER annotation_artifact_bytes_delete AFTER DELETE ON annotation
            WHEN \(bytes("OLD")) <> 0 BEGIN UPDATE meta SET value = value - \(bytes("OLD")) WHERE key = '\(artifactBytesKey)'; END;
            """)
    }

    /// Why a coach cannot annotate a submission.
    public enum AnnotationTargetRefusal: Error, Sendable, Equatable {
        /// No such submission, or not one this coach answers (the coach of its enrolment; a
        /// placing coach for a placement assessment): answered as not found.
        case notFound
        /// Still being encoded: its duration and audio are not final.
        case notReady
        /// Withdrawn or failed: there is no recording to mark any more.
        case notAnnotatable(SubmissionState)
    }

    /// The submission `coachId` may annotate, or why not.
    static func annotationTarget(_ db: SQLSession, submissionId: String, coachId: String, now: Date) throws
        -> Result<SubmissionRecord, AnnotationTargetRefusal> {
        // An erased student's recordings are no one's to mark (their marks' words are gone; none come back).
        guard let submission = try SubmissionRecord.fetchOne(db, key: submissionId), try !isErased(db, studentId: submission.studentId),
              try mayAnswer(db, submission: submission, coachId: coachId, now: now) else { return .failure(.notFound) }
        switch submission.state {
        case .withdrawn, .failed: return .failure(.notAnnotatable(submission.state))
        case .processing: return .failure(.notReady)
        default: break
        }
        guard submission.audioPath != nil else { return .failure(.notReady) }
        return .success(submission)
    }

    /// The submission `coachId` may annotate now, asked before a body is read (`addAnnotation`
    /// asks again inside its transaction).
    public func annotationTarget(submissionId: String, coachId: String, now: Date) async throws -> Result<SubmissionRecord, AnnotationTargetRefusal> {
        try await engine.read { db in try Self.annotationTarget(db, submissionId: submissionId, coachId: coachId, now: now) }
    }

    /// Records an annotation (its spoken correction, if any, already placed durably) — one
    /// transaction. Once the reply is out (the submission is `feedback_ready`) the student
    /// gets `annotation_added`, linked to the newest reply; before it, the annotation rides
    /// with the reply (`feedback_ready`), and the timeline shows it from then on.
    public func addAnnotation(
        submissionId: String, coachId: String, annotation: ValidAnnotation, clip: CommentRecord.Clip?, now: Date
    ) async throws -> Result<AnnotationRecord, AnnotationTargetRefusal> {
        try await immediateWrite { db in
            let submission: SubmissionRecord
            switch try Self.annotationTarget(db, submissionId: submissionId, coachId: coachId, now: now) {
            case let .success(target): submission = target
            case let .failure(refusal): return .failure(refusal)
            }
            let record = AnnotationRecord(
                id: IdentifierGenerator.make("ann", now: now), submissionId: submission.id, studentId: submission.studentId,
                coachId: coachId, atSeconds: annotation.atSeconds, surah: annotation.surah, ayah: annotation.ayah,
                kind: annotation.kind, text: annotation.text, createdAt: now,
                audioPath: clip?.audioPath, audioBytes: clip?.audioBytes, waveformPath: clip?.waveformPath,
                durationSeconds: clip?.durationSeconds, outputGainDB: clip?.outputGainDB)
            try record.insert(db)
            if submission.state == .feedbackReady {
                let levelId = try String.fetchOne(db, sql: "SELECT levelId FROM enrolment WHERE id = ?", arguments: [submission.enrolmentId])
                let week = try StudentContext.weekInfo(db, levelId: levelId, slot: submission.slot)
                let reply = try String.fetchOne(db, sql: """
                    SELECT id FROM feedback WHERE submissionId = ? AND state = 'ready' ORDER BY receivedAt DESC LIMIT 1
                    """, arguments: [submission.id])
                let coach = try CoachRecord.fetchOne(db, key: coachId)
                try Self.recordEvent(
                    db, type: .annotationAdded, studentId: submission.studentId, levelId: levelId, slot: submission.slot,
                    occurredAt: now, submissionId: submission.id, feedbackId: reply, coachName: coach?.name,
                    message: StudentMessages.annotationAdded(
                        coachName: coach?.name, surah: record.surah, ayah: record.ayah, atSeconds: record.atSeconds, week: submission.week,
                        title: week.title, kind: record.kind.rawValue, text: record.text, clipSeconds: clip?.durationSeconds))
            }
            return .success(record)
        }
    }

    /// One annotation, or nil.
    public func annotation(id: String) async throws -> AnnotationRecord? {
        try await engine.read { db in try AnnotationRecord.fetchOne(db, key: id) }
    }

    /// Deletes annotation `id` when `coachId` wrote it; the deleted row (its files are the
    /// caller's to remove, after the commit), or nil when there is none of theirs.
    public func deleteAnnotation(id: String, coachId: String) async throws -> AnnotationRecord? {
        try await engine.write { db in
            guard let record = try AnnotationRecord.fetchOne(db, key: id), record.coachId == coachId else { return nil }
            try record.delete(db)
            return record
        }
    }

    /// Changes annotation `id` (its moment, ayah, kind or note) when `coachId` wrote it and may
    /// still annotate its recording — one transaction. `edit` gives the annotation as it is to
    /// be from the stored one and the recording's duration (it throws to refuse the change,
    /// and nothing is written). Its spoken correction, if any, stays as it is (`replaceAnnotationClip` changes it); no event is sent
    /// (a student who has the reply sees the annotation as it now is). `.notFound` when there
    /// is none of theirs.
    public func updateAnnotation(
        id: String, coachId: String, now: Date,
        edit: @escaping @Sendable (_ stored: AnnotationRecord, _ durationSeconds: Double) throws -> ValidAnnotation
    ) async throws -> Result<AnnotationRecord, AnnotationTargetRefusal> {
        try await immediateWrite { db in
            guard var record = try AnnotationRecord.fetchOne(db, key: id), record.coachId == coachId else { return .failure(.notFound) }
            let submission: SubmissionRecord
            switch try Self.annotationTarget(db, submissionId: record.submissionId, coachId: coachId, now: now) {
            case let .success(target): submission = target
            case let .failure(refusal): return .failure(refusal)
            }
            let valid = try edit(record, submission.analysis.durationSeconds)
            record.atSeconds = valid.atSeconds
            record.surah = valid.surah
            record.ayah = valid.ayah
            record.kind = valid.kind
            record.text = valid.text
            try record.update(db)
            return .success(record)
        }
    }

    /// Gives annotation `id` the spoken correction `clip` (already placed durably), or takes its
    /// correction away (`clip` nil), when `coachId` wrote it and may still annotate its
    /// recording — one transaction. `check` sees the stored annotation first and throws to
    /// refuse (a mark left with neither a note nor a correction), and nothing is written. As
    /// with an edit, no event is sent: a student who has the reply hears the correction as it
    /// now is. The annotation as it now is and the files of the correction it had (the
    /// caller's to remove, after the commit); `.notFound` when there is none of theirs.
    public func replaceAnnotationClip(
        id: String, coachId: String, clip: CommentRecord.Clip?, now: Date,
        check: @escaping @Sendable (_ stored: AnnotationRecord) throws -> Void
    ) async throws -> Result<(annotation: AnnotationRecord, replaced: [String]), AnnotationTargetRefusal> {
        try await immediateWrite { db in
            guard var record = try AnnotationRecord.fetchOne(db, key: id), record.coachId == coachId else { return .failure(.notFound) }
            switch try Self.annotationTarget(db, submissionId: record.submissionId, coachId: coachId, now: now) {
            case .success: break
            case let .failure(refusal): return .failure(refusal)
            }
            try check(record)
            let replaced = record.files
            record.audioPath = clip?.audioPath
            record.audioBytes = clip?.audioBytes
            record.waveformPath = clip?.waveformPath
            record.durationSeconds = clip?.durationSeconds
            record.outputGainDB = clip?.outputGainDB
            try record.update(db)
            return .success((record, replaced))
        }
    }

    /// The annotations of these submissions by submission id, in recording order (`at_seconds`).
    /// With `sentOnly` (what a student sees), only those of submissions whose reply is out
    /// (`feedback_ready`): a coach's marks are a draft until then.
    public func annotations(submissionIds: [String], sentOnly: Bool) async throws -> [String: [AnnotationRecord]] {
        guard !submissionIds.isEmpty else { return [:] }
        return try await engine.read { db in try Self.annotations(db, submissionIds: submissionIds, sentOnly: sentOnly) }
    }

    static func annotations(_ db: SQLSession, submissionIds: [String], sentOnly: Bool) throws -> [String: [AnnotationRecord]] {
        var condition = SQLArguments.inList("submissionId", count: submissionIds.count)
        var arguments = SQLArguments(submissionIds)
        if sentOnly {
            condition += " AND submissionId IN (SELECT id FROM submission WHERE state = ?)"
            arguments += [SubmissionState.feedbackReady.rawValue]
        }
        return Dictionary(grouping: try AnnotationRecord.fetchAll(db, where: condition, arguments, orderBy: "atSeconds, createdAt, rowid"),
                          by: \.submissionId)
    }

    /// A student's annotations, newest first, of one surah or one ayah (or all), at most
    /// `limit`; `sentOnly` as in `annotations(submissionIds:sentOnly:)`.
    public func annotationHistory(studentId: String, surah: Int?, ayah: Int?, sentOnly: Bool, limit: Int) async throws -> [AnnotationRecord] {
        try await engine.read { db in
            var condition = "studentId = ?"
            var arguments: SQLArguments = [studentId]
            if let surah {
                condition += " AND surah = ?"
                arguments += [surah]
            }
            if let ayah {
                condition += " AND ayah = ?"
                arguments += [ayah]
            }
            if sentOnly {
                condition += " AND submissionId IN (SELECT id FROM submission WHERE state = ?)"
                arguments += [SubmissionState.feedbackReady.rawValue]
            }
            // Ties (one instant) in the order they were written: the rowid, not the random id.
            return try AnnotationRecord.fetchAll(db, where: condition, arguments, orderBy: "createdAt DESC, rowid DESC", limit: limit)
        }
    }
}
