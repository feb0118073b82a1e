import Foundation
import GRDB
import TilawaCore

/// Who an announcement is for (DESIGN §14): every student, a level's, a semester's, a coach's.
public enum AnnouncementAudience: Sendable, Equatable {
    case all
    case level(String)
    case semester(String)
    case coach(String)

    /// The stored and API form: `{"all": true}`, `{"level": "L1"}`, `{"semester": …}`, `{"coach": …}`.
    public var json: [String: Any] {
        switch self {
        case .all: ["all": true]
        case let .level(id): ["level": id]
        case let .semester(id): ["semester": id]
        case let .coach(id): ["coach": id]
        }
    }

    /// The audience an API object names; nil for anything but exactly one of the four forms.
    public init?(json: [String: Any]) {
        guard json.count == 1, let (key, value) = json.first else { return nil }
        switch (key, value) {
        case ("all", let flag as Bool) where flag: self = .all
        case ("level", let id as String) where Identifier.isValid(id): self = .level(id)
        case ("semester", let id as String) where Identifier.isValid(id): self = .semester(id)
        case ("coach", let id as String) where Identifier.isValid(id): self = .coach(id)
        default: return nil
        }
    }

    /// The stored text (`all`, `level:L1`, `semester:fall-2026`, `coach:C01`).
    var stored: String {
        switch self {
        case .all: "all"
        case let .level(id): "level:\(id)"
        case let .semester(id): "semester:\(id)"
        case let .coach(id): "coach:\(id)"
        }
    }

    init?(stored: String) {
        if stored == "all" { self = .all; return }
        let parts = stored.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return nil }
        switch parts[0] {
        case "level": self = .level(parts[1])
        case "semester": self = .semester(parts[1])
        case "coach": self = .coach(parts[1])
        default: return nil
        }
    }
}

/// An announcement from the programme: written by ops, published at `publishAt` to the
/// students its audience names then, each getting one `announcement` event.
public struct AnnouncementRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "announcement"
    public var id: String
    public var title: String
    public var body: String
    /// `AnnouncementAudience.stored`.
    public var audience: String
    public var publishAt: Date
    public var createdAt: Date
    /// Who wrote it (`ops`, or the token's subject).
    public var createdBy: String
    public var publishedAt: Date?
    public var cancelledAt: Date?
    /// How many students it reached, once published.
    public var recipients: Int?

    public var audienceValue: AnnouncementAudience? { AnnouncementAudience(stored: audience) }

    /// `scheduled`, `published` or `cancelled`.
    public var state: String { publishedAt != nil ? "published" : cancelledAt != nil ? "cancelled" : "scheduled" }
}

extension AppDatabase {
    /// The migration "announcements". Never edited once landed.
    static func migrateAnnouncements(_ db: Database) throws {
        try db.create(table: "announcement") { t in
            t.primaryKey("id", .text)
            t.column("title", .text).notNull()
            t.column("body", .text).notNull()
            t.column("audience", .text).notNull()
            t.column("publishAt", .datetime).notNull()
            t.column("createdAt", .datetime).notNull()
            t.column("createdBy", .text).notNull()
            t.column("publishedAt", .datetime)
            t.column("cancelledAt", .datetime)
            t.column("recipients", .integer)
        }
        try db.create(index: "announcement_due", on: "announcement", columns: ["publishAt"],
                      condition: Column("publishedAt") == nil && Column("cancelledAt") == nil)
    }

    /// Why an announcement is not written: its audience names a level, semester or coach the
    /// programme does not have (`unknown_level`, …).
    public enum AnnouncementRefusal: Error, Sendable, Equatable {
        case unknown(what: String, id: String)

        public var code: String {
            switch self { case let .unknown(what, _): "unknown_\(what)" }
        }

        public var message: String {
            switch self { case let .unknown(what, id): "There is no \(what) \(RosterText.quoted(id)) in the programme; the audience must name one." }
        }
    }

    /// Writes an announcement to be published at `publishAt` (now or later).
    public func createAnnouncement(
        title: String, body: String, audience: AnnouncementAudience, publishAt: Date, by author: String, now: Date
    ) async throws -> Result<AnnouncementRecord, AnnouncementRefusal> {
        try await immediateWrite { db in
            let check: (table: String, what: String, id: String)? = switch audience {
            case .all: nil
            case let .level(id): ("level", "level", id)
            case let .semester(id): ("semester", "semester", id)
            case let .coach(id): ("coach", "coach", id)
            }
            if let check, try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(check.table) WHERE id = ?", arguments: [check.id]) == 0 {
                return .failure(.unknown(what: check.what, id: check.id))
            }
            let record = AnnouncementRecord(
                id: IdentifierGenerator.make("ann", now: now), title: title, body: body, audience: audience.stored,
                publishAt: publishAt, createdAt: now, createdBy: author, publishedAt: nil, cancelledAt: nil, recipients: nil)
            try record.insert(db)
            return .success(record)
        }
    }

    /// An announcement by id, nil when there is none.
    public func announcement(id: String) async throws -> AnnouncementRecord? {
        try await engine.read { db in try AnnouncementRecord.fetchOne(db, key: id) }
    }

    /// What cancelling did.
    public enum AnnouncementCancellation: Sendable, Equatable {
        /// Cancelled now, or before (again changes nothing).
        case cancelled(AnnouncementRecord)
        /// Published already: its students have it.
        case alreadyPublished(AnnouncementRecord)
        case notFound
    }

    /// Cancels an announcement not published yet.
    public func cancelAnnouncement(id: String, now: Date) async throws -> AnnouncementCancellation {
        try await immediateWrite { db in
            guard var record = try AnnouncementRecord.fetchOne(db, key: id) else { return .notFound }
            if record.publishedAt != nil { return .alreadyPublished(record) }
            if record.cancelledAt == nil {
                record.cancelledAt = now
                try record.update(db)
            }
            return .cancelled(record)
        }
    }

    /// Publishes every announcement due at `now` (not cancelled, not published): its audience
    /// is resolved now — the students enrolled in a semester that has not closed (for `level`
    /// and `coach`, at that level or with that coach; for `semester`, every student of it) —
    /// and each gets one `announcement` event, in the same transaction that marks it
    /// published (a restart or a second caller never sends it twice). Returns the events written.
    @discardableResult
    public func publishDueAnnouncements(now: Date) async throws -> Int {
        try await immediateWrite { db in
            let due = try AnnouncementRecord.fetchAll(
                db, where: "publishedAt IS NULL AND cancelledAt IS NULL AND publishAt <= ?", [now], orderBy: "publishAt, id")
            guard !due.isEmpty else { return 0 }
            let open = try SemesterRecord.fetchAll(db).filter { try !$0.calendar().isClosed(at: now) }.map(\.id)
            var written = 0
            for var announcement in due {
                let students: [String]
                switch announcement.audienceValue {
                case .all?:
                    students = try String.fetchAll(db, sql: """
                        SELECT DISTINCT studentId FROM enrolment WHERE semesterId IN (\(open.map { _ in "?" }.joined(separator: ",")))
                        ORDER BY studentId
                        """, arguments: SQLArguments(open))
                case let .level(id)?:
                    students = try String.fetchAll(db, sql: """
                        SELECT DISTINCT studentId FROM enrolment WHERE levelId = ? AND semesterId IN (\(open.map { _ in "?" }.joined(separator: ",")))
                        ORDER BY studentId
                        """, arguments: SQLArguments([id] + open))
                case let .coach(id)?:
                    students = try String.fetchAll(db, sql: """
                        SELECT DISTINCT studentId FROM enrolment WHERE coachId = ? AND semesterId IN (\(open.map { _ in "?" }.joined(separator: ",")))
                        ORDER BY studentId
                        """, arguments: SQLArguments([id] + open))
                case let .semester(id)?:
                    students = try String.fetchAll(db, sql: "SELECT DISTINCT studentId FROM enrolment WHERE semesterId = ? ORDER BY studentId",
                                                   arguments: [id])
                case nil:
                    students = []
                }
                for student in students {
                    try Self.recordAnnouncement(db, announcement, studentId: student, now: now)
                }
                announcement.publishedAt = now
                announcement.recipients = students.count
                try announcement.update(db)
                written += students.count
            }
            return written
        }
    }

    /// One student's `announcement` event: about no week, linked to the announcement.
    private static func recordAnnouncement(_ db: SQLSession, _ announcement: AnnouncementRecord, studentId: String, now: Date) throws {
        let id = IdentifierGenerator.make("evt", now: now)
        let message = StudentMessages.announcement(title: announcement.title, body: announcement.body)
        var payload = EventPayload(
            id: id, type: EventType.announcement.rawValue, recipient: EventRecipient.student.role, recipientId: nil,
            studentId: studentId, occurredAt: now, week: nil, submissionId: nil, feedbackId: nil, coachName: nil,
            message: message.text,
            link: "\(DeepLink.scheme)://announcements/\(announcement.id)",
            extra: .init(announcement: .init(id: announcement.id, title: announcement.title, body: announcement.body)))
        payload.messageKey = message.key
        payload.params = message.params
        payload.push = try pushes(.announcement, to: .student)
            && studentWantsPush(db, studentId: studentId, type: .announcement, recipient: .student)
        var event = EventRecord(id: id, studentId: studentId, type: EventType.announcement.rawValue, payload: try payload.jsonData(),
                                occurredAt: now, recipient: .student)
        try insertEvent(db, &event)
    }
}
