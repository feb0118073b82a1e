import HTTPTypes
import Hummingbird

/// Lets browser apps (tus-js-client, a web recorder) call the API from another origin:
/// answers CORS preflights and marks every answer — problems included — as readable from any
/// origin, with the headers the upload protocols need exposed. `*` is safe here: the API
/// authenticates with a bearer token a page must hold, never with cookies.
///
/// Outside the problem mapping, so refusals carry the headers too (Hummingbird's own
/// `CORSMiddleware` wraps errors in a type the problem mapping would not recognise).
struct CORSHeadersMiddleware: RouterMiddleware {
    typealias Context = TilawaRequestContext

    static let allowedMethods = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"
    static let allowedHeaders = [
        "Authorization", "Content-Type", "Idempotency-Key", "Recorded-At", "If-None-Match", "Range", "Tus-Resumable", "Upload-Length",
        "Upload-Metadata", "Upload-Offset", "Upload-Checksum", "Upload-Defer-Length", "Upload-Complete", "Upload-Incomplete",
        "Upload-Draft-Interop-Version", "X-Requested-With", "X-HTTP-Method-Override",
    ].joined(separator: ", ")
    static let exposedHeaders = [
        "Location", "Link", "Retry-After", "ETag", "Content-Range", "Idempotent-Replayed", "Tus-Resumable", "Tus-Version", "Tus-Extension",
        "Tus-Max-Size", "Tus-Checksum-Algorithm", "Upload-Offset", "Upload-Length", "Upload-Expires", "Upload-Complete",
        "Upload-Incomplete", "Upload-Limit", "Upload-Draft-Interop-Version",
    ].joined(separator: ", ")

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The API only: the operations listener's routes (`/metrics`, `/readyz`) stay unreadable to pages.
        guard request.headers[.origin] != nil, request.uri.path.hasPrefix("/v1/") else { return try await next(request, context) }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            return Response(status: .noContent, headers: [
                .accessControlAllowOrigin: "*", .accessControlAllowMethods: Self.allowedMethods,
                .accessControlAllowHeaders: Self.allowedHeaders, .accessControlMaxAge: "86400",
            ])
        }
        var response = try await next(request, context)
        response.headers[.accessControlAllowOrigin] = "*"
        response.headers[.accessControlExposeHeaders] = Self.exposedHeaders
        return response
    }
}
