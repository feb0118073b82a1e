import Foundation
import HTTPTypes
import Hummingbird
import TilawaStore

/// Health, readiness, metrics and the API description: no token needed.
struct OperationsRoutes: Sendable {
    let api: APIContext

    func register(on router: Router<TilawaRequestContext>) {
        router.get("healthz") { _, _ in
            try api.json(["status": "ok"])
        }
        router.get("readyz", use: ready)
        router.get("metrics", use: metrics)
        router.get("openapi.yaml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml"],
                     body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.yaml)))
        }
    }

    @Sendable func ready(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        guard await api.runtime.database.isResponsive() else {
            throw APIProblem(.serviceUnavailable, code: "database_unavailable", detail: "The database does not answer.")
        }
        if let free = DiskSpace.availableBytes(at: api.runtime.stateDirectory.root.path),
           free < Int64(api.runtime.configuration.storage.minFreeBytes) {
            throw APIProblem(.serviceUnavailable, code: "storage_full", detail: "The state directory's disk is nearly full.")
        }
        // A node that cannot reach where artifacts are kept cannot take a recording: out of the
        // balancer's rotation until it can (an S3 store: one listing of at most one key, 3 s at most).
        let storage = api.runtime.stateDirectory.artifactStore.storage
        if !(await storage.isReachable()) {
            throw APIProblem(.serviceUnavailable, code: "artifact_store_unavailable",
                             detail: "The recordings' store (\(storage.description)) does not answer this node.")
        }
        let uptime = Int(api.now.timeIntervalSince(api.startedAt))
        return try api.json(ReadyBody(status: "ok", uptimeSeconds: uptime, startedAt: api.startedAt, pid: Int(getpid()),
                                    node: EncodeJobRunner.workerIdentity))
    }

    @Sendable func metrics(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        if let gauges = try? await api.runtime.database.operationalGauges(now: api.now) {
            api.metrics.queueDepth.set(Double(gauges.queueDepth))
            api.metrics.awaitingFeedback.set(Double(gauges.awaitingFeedback))
            api.metrics.overdue.set(Double(gauges.overdue))
            api.metrics.undeliveredEvents.set(Double(gauges.undeliveredEvents))
        }
        if let turnaround = try? await api.runtime.database.replyTurnaround(now: api.now) {
            api.metrics.observeTurnaround(turnaround)
        }
        api.metrics.observeDatabaseCollisions(api.runtime.database.engine.collisions)
        // The same checks `tilawa status` makes, as the daemon sees itself (at most once a
        // minute; the gauges keep the last values between).
        if api.metrics.statusObservationDue() {
            api.metrics.observeStatus(await StatusReporter(configuration: api.runtime.configuration)
                .report(now: api.now, database: api.runtime.database, startedAt: api.startedAt))
        }
        return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(string: api.metrics.render())))
    }
}
