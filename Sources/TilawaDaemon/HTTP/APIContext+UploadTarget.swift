import Foundation
import Hummingbird
import TilawaCore

extension APIContext {
    /// The student and slot an upload to `/v1/students/{id}/weeks/{slot}/…` is for, refused
    /// before its body when the caller is not that student, the slot is not one, the declared
    /// type is not audio (when the body is the recording: a tus body is
    /// `application/offset+octet-stream`, its type is in `Upload-Metadata`), or the disk is nearly full.
    func uploadTarget(_ request: Request, context: TilawaRequestContext, receiver: UploadReceiver,
                      bodyIsRecording: Bool = true) throws -> (studentId: String, slot: Slot) {
        let principal = try context.requirePrincipal()
        let studentId = try identifier("id", in: context)
        guard principal.role == .student else {
            context.refuseBody(of: request)
            throw APIProblem.forbidden("Only the student themself can submit their recordings.")
        }
        guard principal.subject == studentId else {
            context.refuseBody(of: request)
            throw APIProblem.unknownStudent
        }
        let slot: Slot
        do {
            slot = try Slot(parsing: context.parameters.get("slot") ?? "")
        } catch {
            context.refuseBody(of: request)
            throw APIProblem.rule(error, timeZone: .gmt, now: now)
        }
        if bodyIsRecording { try receiver.requireAudio(request, context: context, what: "recording") }
        let minimumFree = Int64(runtime.configuration.storage.minFreeBytes)
        if let free = DiskSpace.availableBytes(at: runtime.stateDirectory.root.path), free < minimumFree {
            context.refuseBody(of: request)
            metrics.countUpload(outcome: "error", reason: "storage_full")
            throw APIProblem.storageFull
        }
        return (studentId, slot)
    }
}

extension APIContext {
    /// What an upload's headers decide before its body is read, in this order (after the
    /// caller, the slot, the media type and the disk, `uploadTarget`): the `Idempotency-Key`
    /// — 409 while a request with it is running (a one-shot request, or a resumable upload
    /// still receiving), 409 when it answered for another slot — then, unless the request may
    /// be a replay of one that was answered (which must get its answer even when the rule
    /// would refuse a new recording now), the rule's cheap prechecks (an unknown or locked
    /// slot, a student not placed, no attempt left). Only then does the caller take an upload
    /// slot and read the body; the binding checks stay the atomic ones that follow it.
    ///
    /// One key space per student across protocols: `Idempotency-Key`s of one-shot and
    /// resumable uploads share the idempotency table, where every protocol claims its key
    /// before a recording is judged (`SubmissionRoutes`, `ResumableUploads.complete`).
    ///
    /// - Parameter resumableCreation: the request creates a resumable upload, for which an
    ///   upload holding the same key is the one it gives back, not a conflict.
    /// - Returns: the key's state machine, expecting the body.
    func checkBeforeBody(_ request: Request, context: TilawaRequestContext, studentId: String, slot: Slot, key: String?,
                         resumableCreation: Bool = false) async throws -> IdempotencyStateMachine {
        var idempotency = IdempotencyStateMachine()
        var checkRules = true
        if let key {
            let configuration = runtime.configuration
            let record = try await runtime.database.idempotencyState(
                owner: .student(studentId), key: key, now: now, retention: configuration.idempotencyRetention,
                inFlightTimeout: configuration.http.uploadTimeout + 600)
            switch idempotency.headersReceived(record, slot: slot.description) {
            case let .refuse(refusal):
                context.refuseBody(of: request)
                throw SubmissionRoutes.problem(refusal)
            case .readBody:
                checkRules = false
            default:
                if !resumableCreation, let upload = try await runtime.database.resumableUpload(studentId: studentId, key: key, now: now),
                   upload.state != .answered {
                    context.refuseBody(of: request)
                    var problem = SubmissionRoutes.problem(.keyInUse)
                    problem.detail = "An upload with this Idempotency-Key is still under way; resume it at its Location, or cancel it there."
                    problem.headers[.location] = ResumableUploads.path(of: upload.id)
                    throw problem
                }
            }
        }
        if checkRules, let precheck = try await runtime.database.precheckAdmission(studentId: studentId, slot: slot, policy: runtime.policy, now: now) {
            context.refuseBody(of: request)
            let problem = APIProblem.rule(precheck.refusal, timeZone: precheck.timeZone, now: now)
            metrics.countUpload(outcome: "refused", reason: problem.code)
            throw problem
        }
        return idempotency
    }
}

extension ResumableUploads {
    /// The student and slot of a new resumable upload: `uploadTarget`'s checks, then
    /// `checkBeforeBody`'s (the key, then the rules: a locked week, the attempt limit)
    /// answered now rather than after the last byte. The binding checks are still the atomic
    /// ones when the upload completes.
    func creationTarget(_ request: Request, context: TilawaRequestContext, key: String?,
                        bodyIsRecording: Bool) async throws -> (studentId: String, slot: Slot) {
        let target = try api.uploadTarget(request, context: context, receiver: receiver, bodyIsRecording: bodyIsRecording)
        _ = try await api.checkBeforeBody(request, context: context, studentId: target.studentId, slot: target.slot, key: key,
                                          resumableCreation: true)
        return target
    }
}
