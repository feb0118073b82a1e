import Foundation
import GRDB
import Logging
import Testing
import TilawaCore
import TilawaPostgres
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

extension TestEngine {
    /// Where a test's data lives: a file in its state directory, or a database of the shared server.
    func newLocation(_ state: StateDirectory) throws -> String {
        switch self {
        case .sqlite: state.databasePath
        case .postgres: try SharedPostgres.database()
        }
    }

    /// A migrated store at `location` — as another node (or process) would open it.
    func open(_ location: String) throws -> AppDatabase {
        switch self {
        case .sqlite:
            return try AppDatabase.open(path: location)
        case .postgres:
            guard let parsed = PostgresLocation(url: location) else {
                throw SharedPostgres.StartError(description: "the shared server's URL does not parse")
            }
            let store = PostgresStore(location: parsed, password: nil, maximumConnections: 4, logger: Logger(label: "test"))
            try store.migrate()
            return AppDatabase(engine: store)
        }
    }
}

/// A state directory in a fresh temporary folder with a migrated on-disk database (WAL),
/// seeded with one semester (fall 2026, New York), one coach, one level and students.
struct TestStore {
    let root: URL
    let state: StateDirectory
    let database: AppDatabase
    /// The engine and where the data is, for `anotherNode()`.
    let engine: TestEngine
    let location: String

    /// Saturday 5 September 2026, 00:00 in New York: week 1 unlocks.
    static let semesterStart = LocalDate(year: 2026, month: 9, day: 5)

    init(_ engine: TestEngine = .sqlite, students: [String] = ["S1001", "S1002"]) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("tilawa-store-\(UUID().uuidString)")
        state = StateDirectory(path: root.path)
        try state.prepare()
        self.engine = engine
        location = try engine.newLocation(state)
        database = try engine.open(location)
        try database.engine.write { db in
            try SemesterRecord(id: "fall-2026", name: "Fall 2026", startDate: "2026-09-05", timeZone: "America/New_York",
                               weekCount: 15, catchUpGraceDays: 14).insert(db)
            try CoachRecord(id: "C01", name: "Ustadha Maryam", email: nil).insert(db)
            try CoachRecord(id: "C02", name: "Ustadh Yusuf", email: nil).insert(db)
            try LevelRecord(id: "L1", name: "Foundations").insert(db)
            for week in 1...15 {
                try CurriculumWeekRecord(levelId: "L1", week: week, title: "Title \(week)", passage: "Passage \(week)").insert(db)
            }
            for id in students {
                try StudentRecord(id: id, name: "Student \(id)").insert(db)
                var enrolment = EnrolmentRecord(studentId: id, semesterId: "fall-2026", levelId: "L1", coachId: "C01",
                                                createdAt: Self.newYork(2026, 9, 1), placedAt: Self.newYork(2026, 9, 1), placedBy: "test")
                try enrolment.insert(db)
            }
        }
    }

    func remove() {
        close(database)
        try? FileManager.default.removeItem(at: root)
    }

    /// The same data opened again, as a second process or node would.
    func anotherNode() throws -> AppDatabase {
        try engine.open(location)
    }

    /// Lets go of a node's connections (`remove()` does it for `database`).
    func close(_ node: AppDatabase) {
        (node.engine as? PostgresStore)?.close()
    }

    /// An instant in the programme's zone.
    static func newYork(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 12, _ minute: Int = 0) -> Date {
        var components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute)
        components.timeZone = TimeZone(identifier: "America/New_York")
        return Calendar(identifier: .gregorian).date(from: components)!
    }

    static let analysis = AudioAnalysis(
        durationSeconds: 12, speechSeconds: 9, speechRatio: 0.75, loudnessLUFS: -21, peakDBFS: -3, clippedRatio: 0,
        leadingSilenceSeconds: 0.5, trailingSilenceSeconds: 0.5)

    static let source = AudioSource(container: "wav", codec: "pcm_s16le", sampleRate: 48_000, channels: 1)

    /// An admission request for `student` and `slot` at `at`.
    func request(_ student: String, _ slot: Slot, at: Date, id: String = IdentifierGenerator.make("sub")) -> AdmissionRequest {
        AdmissionRequest(
            submissionId: id, studentId: student, slot: slot, receivedAt: at, analysis: Self.analysis, source: Self.source,
            warnings: [], originalPath: "originals/\(id).wav", originalBytes: 1_000, origin: .cli)
    }
}

extension AdmissionOutcome {
    var submission: SubmissionRecord? {
        if case let .admitted(submission, _, _) = self { submission } else { nil }
    }

    var refusal: RuleRefusal? {
        if case let .refused(refusal, _) = self { refusal } else { nil }
    }
}

extension TestStore {
    /// Every stored event carries `message_key` and `params`, and its `message` is their
    /// English rendering; returns the keys seen.
    @discardableResult
    func expectMessagesRenderFromKeys(sourceLocation: SourceLocation = #_sourceLocation) throws -> Set<String> {
        let payloads = try database.engine.read { db in try EventRecord.fetchAll(db) }
            .map { try JSONDecoder.iso.decode(EventPayload.self, from: $0.payload) }
        var keys = Set<String>()
        for payload in payloads {
            guard let key = payload.messageKey, let params = payload.params else {
                Issue.record("\(payload.type) has no message_key or params", sourceLocation: sourceLocation)
                continue
            }
            keys.insert(key)
            #expect(EnglishMessages.render(key: key, params: params) == payload.message, "\(key)", sourceLocation: sourceLocation)
        }
        return keys
    }
}
