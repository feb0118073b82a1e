import Foundation
import HTTPTypes
import Hummingbird

/// Who may see what (DESIGN §4): a student their own data; a coach the students of the
/// enrolments they coach (and, if they place students, unplaced students and their
/// placement assessments); ops everything.
///
/// Existence is never revealed to someone who may not see the thing: a student or coach id
/// the caller may not reach is answered exactly as one that does not exist (404
/// `unknown_student` / `unknown_coach`); only a role that can never reach the route at all is
/// told `403 forbidden`, which says nothing about any id.
struct AccessPolicy: Sendable {
    let runtime: TilawaRuntime

    /// Allows `principal` (in one of `roles`) to reach the data of `studentId`; 403 for
    /// another role, 404 `unknown_student` for a student they may not see or who does not exist.
    func requireStudent(_ studentId: String, for principal: Principal, roles: Set<Role> = [.student, .coach, .ops]) async throws {
        guard roles.contains(principal.role) else { throw APIProblem.forbidden() }
        let coach = principal.role == .coach ? principal.subject : nil
        guard let coachMaySee = try await runtime.database.coachMaySee(studentId: studentId, coachId: coach, now: runtime.clock()) else {
            throw APIProblem.unknownStudent
        }
        let visible = switch principal.role {
        case .ops: true
        case .student: principal.subject == studentId
        case .coach: coachMaySee
        }
        guard visible else { throw APIProblem.unknownStudent }
    }

    /// Allows `principal` (the coach themself, or ops) to reach `coachId`'s data; 403 for a
    /// student, 404 `unknown_coach` for another coach's id or one that does not exist.
    func requireCoach(_ coachId: String, for principal: Principal) async throws {
        switch principal.role {
        case .student: throw APIProblem.forbidden()
        case .coach where principal.subject != coachId: throw APIProblem.unknownCoach
        case .coach, .ops:
            guard try await runtime.database.coachExists(id: coachId) else { throw APIProblem.unknownCoach }
        }
    }

    /// True when `principal` may see the submission's data. Callers answer 404 (not 403)
    /// otherwise, so submission ids of others are not confirmed.
    func canRead(submission: SubmissionRecordView, by principal: Principal) async throws -> Bool {
        // An erased student's recordings are gone for everyone: answered as not found.
        if try await runtime.database.isErased(studentId: submission.studentId) { return false }
        return switch principal.role {
        case .ops: true
        case .student: principal.subject == submission.studentId
        case .coach: try await runtime.database.coachMayRead(submissionId: submission.id, coachId: principal.subject, now: runtime.clock())
        }
    }
}
