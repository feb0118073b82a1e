import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import TilawaS3
import TilawaStore

/// Turns every error a handler throws into a problem+json response: `APIProblem` as it
/// is, Hummingbird's own `HTTPError` with a code named after its status (an unknown path is
/// `404`, a known path with another method `405` with `Allow`), a JSON body over its limit
/// `413`, and anything else as a logged 500 — one request's failure never reaches the server.
/// Under `/scim/v2` the same failures are SCIM errors instead (`SCIMError.mapping`).
///
/// Every 401 thrown is noted in the request's record with its code, for the request log's
/// line (`RequestLogMiddleware`), which names paths as `pseudonyms` shows them, as do the
/// lines written here.
struct ProblemMiddleware<Context: RecordedRequestContext>: RouterMiddleware {
    let routes: RouteTable
    let pseudonyms: LogPseudonyms

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error where SCIMError.covers(request.uri.path) {
            // SCIM's clients read SCIM errors (RFC 7644 §3.12), never problem+json.
            let answer = SCIMError.mapping(error, request: request, routes: routes, logger: context.logger, pseudonyms: pseudonyms)
            context.record.noteRefusal(status: answer.status, code: answer.reason ?? "unauthorized", detail: answer.detail)
            return try answer.response(from: request, context: context)
        } catch let problem as APIProblem {
            context.record.noteRefusal(problem)
            return try problem.response(from: request, context: context)
        } catch let error as HTTPError {
            return try problem(for: error, request: request).response(from: request, context: context)
        } catch let error as S3Error where error.isNotFound && [.get, .head].contains(request.method) && error.code != "NoSuchBucket" {
            // Gone between the look and the read (a withdrawal meanwhile). On a write, or with
            // the bucket missing, it is the store that is not ready (a restart half-way, seen
            // in the chaos soak: an upload answered 404 artifact_missing): a wait, below.
            return try APIProblem(.notFound, code: "artifact_missing", detail: "This recording's file is no longer on the server.")
                .response(from: request, context: context)
        } catch let error as S3Error {
            // The store artifacts live in (artifacts.url: s3://…) did not take or give a file:
            // nothing was recorded (a row commits only after its files are stored).
            context.logger.error("artifact store failed", metadata: ["error": "\(error)", "path": "\(pseudonyms.path(request.uri.path))"])
            return try APIProblem.artifactStoreUnavailable.response(from: request, context: context)
        } catch let error as StoreError {
            return try Self.problem(for: error, path: pseudonyms.path(request.uri.path), context: context).response(from: request, context: context)
        } catch is NIOTooManyBytesError {
            return try APIProblem.bodyTooLarge(limit: context.maxUploadSize).response(from: request, context: context)
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(error)", "path": "\(pseudonyms.path(request.uri.path))"])
            return try APIProblem(.internalServerError, code: "internal_error",
                                  detail: "Something went wrong on our side; nothing was counted. Please try again.")
                .response(from: request, context: context)
        }
    }

    /// The store's failures as what the caller can do: wait (the database is down or busy: 503
    /// with `Retry-After`, nothing was counted), free space (507), or nothing (500, logged
    /// with `path`, the request's as the log shows it).
    static func problem(for error: StoreError, path: String, context: Context) -> APIProblem {
        switch error {
        case .unavailable:
            context.logger.error("database unavailable", metadata: ["error": "\(error)", "path": "\(path)"])
            return APIProblem(.serviceUnavailable, code: error.code,
                              detail: "The database does not answer just now; nothing was counted. Please try again in a minute.",
                              headers: [.retryAfter: "30"])
        case .busy:
            context.logger.warning("database busy", metadata: ["error": "\(error)", "path": "\(path)"])
            return APIProblem(.serviceUnavailable, code: error.code,
                              detail: "Too many changes at once just now; nothing was counted. Please try again in a moment.",
                              headers: [.retryAfter: "2"])
        case .storageFull:
            context.logger.error("storage full", metadata: ["error": "\(error)", "path": "\(path)"])
            return .storageFull
        case .io, .internalInconsistency, .unsupported:
            context.logger.error("request failed", metadata: ["error": "\(error)", "path": "\(path)"])
            return APIProblem(.internalServerError, code: "internal_error",
                              detail: "Something went wrong on our side; nothing was counted. Please try again.")
        }
    }

    private func problem(for error: HTTPError, request: Request) -> APIProblem {
        if error.status == .notFound, let known = routes.match(request.uri.path), !known.methods.contains(request.method) {
            let allow = known.methods.map(\.rawValue).joined(separator: ", ")
            return APIProblem(.methodNotAllowed, code: "method_not_allowed",
                              detail: "\(request.uri.path) does not answer \(request.method.rawValue); it answers \(allow).",
                              headers: [.allow: allow])
        }
        let code = switch error.status {
        case .notFound: "not_found"
        case .methodNotAllowed: "method_not_allowed"
        case .contentTooLarge: "payload_too_large"
        case .badRequest: "bad_request"
        default: "http_\(error.status.code)"
        }
        return APIProblem(error.status, code: code, detail: error.body ?? error.status.reasonPhrase, headers: error.headers)
    }
}
