import Foundation
import Testing
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// The bounds on resumable uploads (open uploads per student, bytes reserved in all) hold
/// exactly when many creations race — on PostgreSQL too, where every creation reads the sum
/// over all uploads: creations take turns under the staging quota's lock rather than fail
/// each other as colliding SERIALIZABLE writes.
@Suite("Resumable uploads' bounds under thirty creations at once")
struct StagingQuotaTests {
    private static func upload(_ index: Int, student: String, now: Date) -> ResumableUploadRecord {
        ResumableUploadRecord(
            id: "up_\(student)_\(index)", studentId: student, enrolmentId: nil, slot: "12", uploadProtocol: .tus, length: 300,
            fileExtension: "wav", fileName: nil, recordedAt: nil, now: now, expiresAt: now + 86_400, idempotencyKey: nil,
            submissionId: "sub_\(student)_\(index)")
    }

    /// The outcomes of `uploads` created all at once, as `created`, `tooManyOpen`, `budgetFull`.
    private static func createAtOnce(_ database: AppDatabase, _ uploads: [ResumableUploadRecord], budgetBytes: Int64, now: Date)
        async throws -> [String: Int] {
        try await withThrowingTaskGroup(of: String.self) { group in
            for upload in uploads {
                group.addTask {
                    switch try await database.createUpload(upload, maxOpenPerStudent: 3, budgetBytes: budgetBytes, maxUploadBytes: 1 << 20, now: now) {
                    case .created: "created"
                    case .tooManyOpen: "tooManyOpen"
                    case .budgetFull: "budgetFull"
                    case .existing, .keyReused: "other"
                    }
                }
            }
            return try await group.reduce(into: [:]) { $0[$1, default: 0] += 1 }
        }
    }

    @Test("one student's thirty at once: exactly three open; then thirty students at once for ten uploads' budget: exactly ten", arguments: TestEngine.all)
    func racingCreations(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let now = Date()
        let oneStudent = try await Self.createAtOnce(store.database, (0..<30).map { Self.upload($0, student: "S1001", now: now) },
                                                     budgetBytes: 1 << 30, now: now)
        #expect(oneStudent == ["created": 3, "tooManyOpen": 27], "\(oneStudent)")

        // 3 × 300 bytes reserved already; room for ten more.
        let manyStudents = try await Self.createAtOnce(store.database, (0..<30).map { Self.upload(0, student: "S3\($0)", now: now) },
                                                       budgetBytes: 13 * 300, now: now)
        #expect(manyStudents == ["created": 10, "budgetFull": 20], "\(manyStudents)")
        let open = try await store.database.engine.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM resumableUpload") }
        #expect(open == 13)
        // They waited their turn: not one was refused by PostgreSQL and run again (as SERIALIZABLE
        // writes, sixty creations that all read the sum collided 17–19 times here).
        #expect(store.database.engine.collisions == 0, "collisions: \(store.database.engine.collisions)")
    }
}
