import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// Builds the HTTP application: routes (DESIGN §4), the error mapping, authentication; SCIM
/// provisioning under `/scim/v2` (DESIGN §16).
public enum TilawaServer {
    /// The router with every route; `/v1` routes require a bearer token.
    public static func makeRouter(api: APIContext) -> Router<TilawaRequestContext> {
        makeRouter(api: api, slots: uploadSlots(api: api))
    }

    /// The cap on uploads in flight, shared by the router's handlers and the connections' admission handler.
    static func uploadSlots(api: APIContext) -> UploadSlots {
        let http = api.runtime.configuration.http
        return UploadSlots(limit: http.maxConcurrentUploads, perPrincipal: http.maxUploadsPerPrincipal,
                           coachReserved: http.coachUploadSlots, gauge: api.metrics.uploadsInFlight)
    }

    static func makeRouter(api: APIContext, slots: UploadSlots) -> Router<TilawaRequestContext> {
        // HEAD on every GET route (RFC 9110 §9.3.2): GET's route runs, errors included, and its
        // body is dropped unsent; a route with a HEAD of its own keeps it (`HEAD /v1/uploads/{id}`,
        // the tus and draft offset probe).
        let router = Router(context: TilawaRequestContext.self, options: .autoGenerateHeadEndpoints)
        let routes = RouteTable()
        // Outermost first: the log sees every answer; the framing rules add `Connection: close`
        // to refusals made before `100 Continue`; the problem mapping turns errors into answers.
        router.add(middleware: RequestLogMiddleware(routes: routes, pseudonyms: api.runtime.pseudonyms))
        router.add(middleware: RequestFramingMiddleware())
        router.add(middleware: CORSHeadersMiddleware())
        router.add(middleware: ProblemMiddleware(routes: routes, pseudonyms: api.runtime.pseudonyms))
        OperationsRoutes(api: api).register(on: router)
        let sessions = DeskSessions(database: api.runtime.database, configuration: api.runtime.configuration)
        let desk = DeskRoutes(api: api, sessions: sessions,
                              provider: DeskProviderSignIn(configuration: api.runtime.configuration, clock: api.runtime.clock))
        desk.register(on: router)
        let v1 = router.group("v1").add(middleware: AuthMiddleware(bearer: api.bearer, sessions: sessions, clock: api.runtime.clock))
        desk.registerAPI(on: v1)
        let http = api.runtime.configuration.http
        let receiver = UploadReceiver(
            stateDirectory: api.runtime.stateDirectory, maxBytes: http.maxUploadBytes, slots: slots,
            minimumRate: MinimumBodyRate(bytesPerSecond: http.minUploadBytesPerSecond, window: http.minUploadRateWindow))
        let uploads = ResumableUploads(api: api, receiver: receiver, locks: api.uploadLocks)
        SubmissionRoutes(api: api, receiver: receiver, uploads: uploads).register(on: v1)
        UploadRoutes(api: api, uploads: uploads).register(on: v1)
        StudentRoutes(api: api).register(on: v1)
        StatusRoutes(api: api).register(on: v1)
        FeedbackRoutes(api: api, receiver: receiver).register(on: v1)
        CommentRoutes(api: api, receiver: receiver).register(on: v1)
        AnnotationRoutes(api: api, receiver: receiver).register(on: v1)
        AnnouncementRoutes(api: api).register(on: v1)
        PreferencesRoutes(api: api).register(on: v1)
        DeviceRoutes(api: api).register(on: v1)
        SessionRoutes(api: api).register(on: v1)
        ConsentRoutes(api: api).register(on: v1)
        ErasureRequestRoutes(api: api).register(on: v1)
        BackOfficeRoutes(api: api).register(on: v1)
        ExportRoutes(api: api).register(on: v1)
        // SCIM's own credential only, never a /v1 token (and the SCIM token nowhere else).
        let scim = router.group("scim/v2").add(middleware: SCIMAuthMiddleware(token: api.scimToken))
        SCIMRoutes(api: api).register(on: scim)
        routes.load(router)
        return router
    }

    /// The application bound to `http.host`:`http.port` (port 0 picks a free one; see `onServerRunning`).
    public static func makeApplication(
        api: APIContext, logger: Logger, services: [any Service] = [],
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let http = api.runtime.configuration.http
        let bodyDeadline = TimeAmount.milliseconds(Int64(http.uploadTimeout * 1000))
        let slots = uploadSlots(api: api)
        let channel = HTTP1Channel.Configuration(
            additionalChannelHandlers: [UploadStreamGuard(bodyDeadline: bodyDeadline, logger: logger, pseudonyms: api.runtime.pseudonyms),
                                        UploadAdmissionHandler(slots: slots, logger: logger, pseudonyms: api.runtime.pseudonyms)],
            // Keep-alive connections with no request in progress close after this (nginx's default).
            idleTimeout: .seconds(75))
        return Application(
            router: makeRouter(api: api, slots: slots),
            server: .http1(configuration: channel),
            configuration: .init(address: .hostname(http.host, port: http.port), serverName: "tilawa"),
            services: services,
            onServerRunning: onServerRunning,
            logger: logger)
    }
}
