import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TilawaStore

/// `GET /v1/students/{id}/export` (the student, ops): the student's own archive as a zip,
/// streamed as it is made (DESIGN §12) — never built in memory or on disk.
struct ExportRoutes: Sendable {
    let api: APIContext

    func register(on group: RouterGroup<TilawaRequestContext>) {
        group.get("students/:id/export", use: export)
        // HEAD of its own: the generated one would answer `Content-Length: 0` for a body
        // whose length is not known before it is made.
        group.head("students/:id/export", use: export)
    }

    @Sendable func export(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let studentId = try api.identifier("id", in: context)
        try await api.access.requireStudent(studentId, for: principal, roles: [.student, .ops])
        guard let archive = try await StudentArchive.load(api.runtime.database, studentId: studentId,
                                                          artifacts: api.runtime.stateDirectory.artifactStore, now: api.now) else {
            throw APIProblem.unknownStudent
        }
        let headers: HTTPFields = [
            .contentType: "application/zip",
            .contentDisposition: "attachment; filename=\"tilawa-\(studentId).zip\"",
            .cacheControl: "no-store",
        ]
        if request.method == .head {
            return Response(status: .ok, headers: headers, body: ResponseBody { writer in try await writer.finish(nil) })
        }
        let names = api.runtime.pseudonyms
        context.logger.info("export", metadata: ["student": "\(names.student(studentId))", "by": "\(names.principal(principal))"])
        let body = ResponseBody { writer in
            let sink = CoalescingWriter(writer)
            try await archive.write { bytes in try await sink.write(bytes) }
            try await sink.flush()
            try await sink.writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}

/// Gathers the zip writer's many small pieces into 64 KiB writes.
///
/// `@unchecked Sendable`: it lives inside one response body's closure and is used by that one
/// task, one call after another (every use is awaited in sequence); it never crosses tasks.
final class CoalescingWriter: @unchecked Sendable {
    var writer: any ResponseBodyWriter
    private var pending = ByteBuffer()

    init(_ writer: any ResponseBodyWriter) {
        self.writer = writer
    }

    func write(_ bytes: [UInt8]) async throws {
        pending.writeBytes(bytes)
        if pending.readableBytes >= 64 * 1024 { try await flush() }
    }

    func flush() async throws {
        guard pending.readableBytes > 0 else { return }
        let buffer = pending
        pending = ByteBuffer()
        try await writer.write(buffer)
    }
}
