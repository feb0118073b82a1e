import Foundation
import GRDB
import TilawaCore

/// What asking for a new resumable upload came to.
public enum UploadCreation: Sendable, Equatable {
    /// A new upload, bound to the student's current enrolment.
    case created(ResumableUploadRecord)
    /// The upload an earlier request with the same `Idempotency-Key` created (same slot and length).
    case existing(ResumableUploadRecord)
    /// The `Idempotency-Key` created an upload for another slot or length.
    case keyReused
    /// The student already holds this many uploads that are not finished.
    case tooManyOpen(limit: Int)
    /// The staging area's byte budget would be exceeded.
    case budgetFull(budget: Int64)
}

extension AppDatabase {
    /// Migration "uploads: resumable": the upload table (tus 1.0 and the IETF draft share it).
    static func migrateResumableUploads(_ db: Database) throws {
        try db.create(table: "resumableUpload") { t in
            t.primaryKey("id", .text)
            t.column("studentId", .text).notNull()
            t.column("enrolmentId", .integer)
            t.column("slot", .text).notNull()
            t.column("uploadProtocol", .text).notNull()
            t.column("length", .integer)
            t.column("offset", .integer).notNull().defaults(to: 0)
            t.column("fileExtension", .text).notNull()
            t.column("fileName", .text)
            t.column("recordedAt", .datetime)
            t.column("createdAt", .datetime).notNull()
            t.column("updatedAt", .datetime).notNull()
            t.column("expiresAt", .datetime).notNull()
            t.column("idempotencyKey", .text)
            t.column("submissionId", .text).notNull()
            t.column("state", .text).notNull()
            t.column("answerStatus", .integer)
            t.column("answerBody", .blob)
        }
        try db.create(index: "resumableUpload_student_state", on: "resumableUpload", columns: ["studentId", "state"])
        try db.create(index: "resumableUpload_expiresAt", on: "resumableUpload", columns: ["expiresAt"])
        try db.execute(sql: """
            CREATE UNIQUE INDEX resumableUpload_student_key ON resumableUpload(studentId, idempotencyKey)
            WHERE idempotencyKey IS NOT NULL
            """)
    }

    /// Creates `upload` in one transaction with the checks that bound staging: at most
    /// `maxOpenPerStudent` unfinished uploads per student and `budgetBytes` reserved in all
    /// (an upload of unknown length reserves `maxUploadBytes`). An `Idempotency-Key` already
    /// used returns the upload it created. Expired uploads count for nothing. Creations take
    /// their turn under the staging quota's lock (on PostgreSQL every creation reads the sum of
    /// all uploads, so as SERIALIZABLE writes any two at once would collide).
    public func createUpload(_ upload: ResumableUploadRecord, maxOpenPerStudent: Int, budgetBytes: Int64, maxUploadBytes: Int64,
                             now: Date) async throws -> UploadCreation {
        try await engine.lockedWrite(.quota("staging")) { db -> UploadCreation in
            var upload = upload
            if let key = upload.idempotencyKey {
                let earlier = try ResumableUploadRecord.fetchOne(db, where: "studentId = ? AND idempotencyKey = ?", [upload.studentId, key])
                if let earlier, earlier.expiresAt > now {
                    let same = earlier.slot == upload.slot && earlier.length == upload.length && earlier.uploadProtocol == upload.uploadProtocol
                    return same ? .existing(earlier) : .keyReused
                }
                // An interrupted judgement is never expired: it is finished at start.
                if let earlier, earlier.state == .completing { return .existing(earlier) }
                // An expired upload's key is free again; its row goes now (the sweep removes its bytes).
                if let earlier {
                    try earlier.delete(db)
                    try Self.forgetUploadSegments(db, uploadId: earlier.id)
                }
            }
            let open = try ResumableUploadRecord.fetchCount(
                db, where: "expiresAt > ? AND studentId = ? AND state != ?", [now, upload.studentId, ResumableUploadRecord.State.answered.rawValue])
            if open >= maxOpenPerStudent { return .tooManyOpen(limit: maxOpenPerStudent) }
            let reserved = try Int64.fetchOne(db, sql: """
                SELECT COALESCE(SUM(COALESCE("length", ?)), 0) FROM resumableUpload WHERE state != 'answered' AND expiresAt > ?
                """, arguments: [maxUploadBytes, now]) ?? 0
            if reserved + upload.reservedBytes(maxUploadBytes: maxUploadBytes) > budgetBytes { return .budgetFull(budget: budgetBytes) }
            upload.enrolmentId = try StudentContext.currentEnrolment(db, studentId: upload.studentId, now: now)?.id
            try upload.insert(db)
            return .created(upload)
        }
    }

    /// The upload with this id, whatever its state (expired ones included: the caller decides).
    public func resumableUpload(id: String) async throws -> ResumableUploadRecord? {
        try await engine.read { db in try ResumableUploadRecord.fetchOne(db, key: id) }
    }

    /// Moves an upload's expiry before an append starts reading (so the sweep cannot take it
    /// mid-append); false when it is gone or no longer receiving.
    public func touchUpload(id: String, expiresAt: Date, now: Date) async throws -> Bool {
        try await engine.write { db in
            try db.execute(sql: "UPDATE resumableUpload SET expiresAt = ?, updatedAt = ? WHERE id = ? AND state = 'receiving'",
                           arguments: [expiresAt, now, id])
            return db.changesCount == 1
        }
    }

    /// Marks a fully received upload as being judged; nil when it is not (or no longer) receiving.
    public func beginUploadCompletion(id: String, now: Date) async throws -> ResumableUploadRecord? {
        try await engine.write { db in
            try db.execute(sql: """
                UPDATE resumableUpload SET state = 'completing', updatedAt = ? WHERE id = ? AND state = 'receiving' AND "offset" = "length"
                """, arguments: [now, id])
            guard db.changesCount == 1 else { return nil }
            return try ResumableUploadRecord.fetchOne(db, key: id)
        }
    }

    /// Stores the answer of a completed upload, kept until `expiresAt` for clients that ask again.
    ///
    /// A refusal of the recording (`refusal`) is owed to the student from this same commit until
    /// a client is seen to get it (`uploadRefusalAnswered`) or the student is told
    /// (`recordUploadRefusal`): a request cancelled or a process killed between the two leaves it
    /// owed, for the minute tick, never lost.
    public func answerUpload(id: String, status: Int, body: Data, refusal: Bool, expiresAt: Date, now: Date) async throws {
        try await engine.write { db in
            try db.execute(sql: """
                UPDATE resumableUpload SET state = 'answered', answerStatus = ?, answerBody = ?, expiresAt = ?, updatedAt = ?,
                  refusalOwedSince = CASE WHEN ? = 1 AND refusalNotifiedAt IS NULL THEN COALESCE(refusalOwedSince, ?) ELSE refusalOwedSince END
                WHERE id = ? AND state = 'completing'
                """, arguments: [status, body, expiresAt, now, refusal, now, id])
            try Self.forgetUploadSegments(db, uploadId: id)
        }
    }

    /// Deletes an upload that is receiving (termination); returns it, or nil when there was
    /// none or it is whole (being judged, or judged: its answer stays).
    public func cancelUpload(id: String) async throws -> ResumableUploadRecord? {
        try await engine.write { db in
            guard let upload = try ResumableUploadRecord.fetchOne(db, key: id), upload.state == .receiving else { return nil }
            try upload.delete(db)
            try Self.forgetUploadSegments(db, uploadId: id)
            return upload
        }
    }

    /// Deletes the uploads whose time has passed (an interrupted judgement is never expired:
    /// it is finished first) and returns them, so their bytes can be removed.
    public func deleteExpiredUploads(now: Date) async throws -> [ResumableUploadRecord] {
        try await engine.write { db in
            let expired = try ResumableUploadRecord.fetchAll(
                db, where: "expiresAt <= ? AND state != ?", [now, ResumableUploadRecord.State.completing.rawValue])
            for upload in expired {
                try upload.delete(db)
                try Self.forgetUploadSegments(db, uploadId: upload.id)
            }
            return expired
        }
    }

    /// Uploads whose judgement a process died in the middle of.
    public func interruptedUploadCompletions() async throws -> [ResumableUploadRecord] {
        try await engine.read { db in
            try ResumableUploadRecord.fetchAll(db, where: "state = ?", [ResumableUploadRecord.State.completing.rawValue])
        }
    }

    /// Ids of the uploads whose bytes must stay in staging (receiving or being judged).
    public func unfinishedUploadIds() async throws -> Set<String> {
        try await engine.read { db in
            try Set(String.fetchAll(db, sql: "SELECT id FROM resumableUpload WHERE state != 'answered'"))
        }
    }

    /// The id of the enrolment a student's recording would belong to at `now`.
    public func currentEnrolmentId(studentId: String, now: Date) async throws -> Int64? {
        try await engine.read { db in try StudentContext.currentEnrolment(db, studentId: studentId, now: now)?.id }
    }
}

extension AppDatabase {
    /// The live resumable upload `studentId` started with `key` (any protocol), if any.
    public func resumableUpload(studentId: String, key: String, now: Date) async throws -> ResumableUploadRecord? {
        try await engine.read { db in
            try ResumableUploadRecord.fetchOne(
                db, where: "studentId = ? AND idempotencyKey = ? AND (expiresAt > ? OR state = ?)",
                [studentId, key, now, ResumableUploadRecord.State.completing.rawValue])
        }
    }
}

extension AppDatabase {
    /// The migration "uploads: refusals told": when a completed resumable upload's refusal was
    /// sent to its student as `submission_refused` (at most once). Never edited once landed.
    static func migrateUploadRefusalNotice(_ db: Database) throws {
        try db.alter(table: "resumableUpload") { t in
            t.add(column: "refusalNotifiedAt", .datetime)
            t.add(column: "refusalOwedSince", .datetime)
        }
    }

    /// Marks the refusal answered to a completing request as owed to its student until the
    /// answer is known to be written (`uploadRefusalAnswered`); `recordOwedUploadRefusals`
    /// tells what is still owed a minute later — a connection gone before the answer, or a
    /// process that died before writing it.
    public func oweUploadRefusal(uploadId: String, now: Date) async throws {
        try await immediateWrite { db in
            try db.execute(sql: """
                UPDATE resumableUpload SET refusalOwedSince = ? WHERE id = ? AND refusalNotifiedAt IS NULL AND refusalOwedSince IS NULL
                """, arguments: [now, uploadId])
        }
    }

    /// The refusal reached the client as its answer: nothing is owed.
    public func uploadRefusalAnswered(uploadId: String, now: Date) async throws {
        try await immediateWrite { db in
            try db.execute(sql: """
                UPDATE resumableUpload SET refusalOwedSince = NULL, refusalNotifiedAt = COALESCE(refusalNotifiedAt, ?) WHERE id = ?
                """, arguments: [now, uploadId])
        }
    }

    /// Tells every refusal owed since before `before` (see `oweUploadRefusal`), from the
    /// answer each upload keeps. Returns how many were told.
    @discardableResult
    public func recordOwedUploadRefusals(before: Date, now: Date) async throws -> Int {
        let owed = try await engine.read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, answerBody FROM resumableUpload WHERE refusalOwedSince IS NOT NULL AND refusalOwedSince < ? AND refusalNotifiedAt IS NULL
                """, arguments: [before]).map { ($0["id"] as String, $0["answerBody"] as Data?) }
        }
        var told = 0
        for (id, body) in owed {
            let problem = body.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
            guard let code = problem?["code"] as? String, let detail = problem?["detail"] as? String else {
                try await uploadRefusalAnswered(uploadId: id, now: now)
                continue
            }
            if try await recordUploadRefusal(uploadId: id, code: code, detail: detail, now: now) { told += 1 }
        }
        return told
    }

    /// Tells the student that their resumable upload `uploadId`, complete, was refused —
    /// `code` and `detail` (what to do) from its answer — as one `submission_refused` event,
    /// at most once per upload (in the transaction that marks it told). Returns whether it
    /// was recorded now.
    @discardableResult
    public func recordUploadRefusal(uploadId: String, code: String, detail: String, now: Date) async throws -> Bool {
        try await immediateWrite { db in
            guard let upload = try ResumableUploadRecord.fetchOne(db, key: uploadId),
                  let slot = try? Slot(parsing: upload.slot) else { return false }
            try db.execute(sql: "UPDATE resumableUpload SET refusalNotifiedAt = ?, refusalOwedSince = NULL WHERE id = ? AND refusalNotifiedAt IS NULL",
                           arguments: [now, uploadId])
            guard db.changesCount == 1 else { return false }
            let enrolment = try upload.enrolmentId.flatMap { try EnrolmentRecord.fetchOne(db, key: $0) }
                ?? StudentContext.currentEnrolment(db, studentId: upload.studentId, now: now)
            let week = try StudentContext.weekInfo(db, levelId: enrolment?.levelId, slot: slot)
            try Self.recordEvent(
                db, type: .submissionRefused, studentId: upload.studentId, levelId: enrolment?.levelId, slot: slot, occurredAt: now,
                submissionId: nil, feedbackId: nil, coachName: nil,
                message: StudentMessages.submissionRefused(week: slot.week, title: week.title, code: code, detail: detail))
            return true
        }
    }
}
