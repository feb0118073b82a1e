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

extension ResumableUploads {
    /// The student and slot of a new resumable upload: `uploadTarget`'s checks, then the
    /// rules (a locked week, the attempt limit) answered now rather than after the last byte.
    /// The binding check is still the atomic one when the upload completes.
    func creationTarget(_ request: Request, context: TilawaRequestContext) async throws -> (studentId: String, slot: Slot) {
        let target = try api.uploadTarget(request, context: context, receiver: receiver, bodyIsRecording: false)
        let now = api.now
        if let precheck = try await api.runtime.database.precheckAdmission(studentId: target.studentId, slot: target.slot, policy: api.runtime.policy, now: now) {
            context.refuseBody(of: request)
            throw APIProblem.rule(precheck.refusal, timeZone: precheck.timeZone, now: now)
        }
        return target
    }
}
