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

    /// 200 while this node should take requests (`ok`, or `degraded` naming what fails: an S3
    /// store that does not answer), 503 when taking it out of rotation helps (`Readiness`).
    /// Asked in order, stopping at the first that takes the node out: the database, the disk,
    /// where artifacts are kept (an S3 store: one listing of at most one key, 3 s at most).
    @Sendable func ready(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let runtime = api.runtime
        var readiness = Readiness()
        readiness.database(answers: await runtime.database.isResponsive())
        if readiness.isReady {
            readiness.disk(freeBytes: DiskSpace.availableBytes(at: runtime.stateDirectory.root.path),
                           minimum: runtime.configuration.storage.minFreeBytes)
        }
        if readiness.isReady {
            let storage = runtime.stateDirectory.artifactStore.storage
            readiness.artifactStore(answers: await storage.isReachable(), description: storage.description,
                                    remoteService: ArtifactStorageConfiguration.isRemoteService(runtime.configuration))
        }
        if let failure = readiness.blocking {
            throw APIProblem(.serviceUnavailable, code: failure.code, detail: failure.detail)
        }
        let uptime = max(0, Int(api.now.timeIntervalSince(api.startedAt)))
        return try api.json(ReadyBody(status: readiness.status, uptimeSeconds: uptime, startedAt: api.startedAt, pid: Int(getpid()),
                                      node: EncodeJobRunner.workerIdentity, failingChecks: readiness.degraded))
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
                .report(now: api.now, database: api.runtime.database, startedAt: api.startedAt,
                        artifactStorage: api.runtime.stateDirectory.artifactStore.storage))
        }
        return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(string: api.metrics.render())))
    }
}
