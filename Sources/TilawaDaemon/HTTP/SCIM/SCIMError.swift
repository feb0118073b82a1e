import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import TilawaStore

/// Every refusal under `/scim/v2` (RFC 7644 §3.12): `application/scim+json`
/// `{"schemas": ["urn:ietf:params:scim:api:messages:2.0:Error"], "status": "400", "scimType":
/// "invalidValue", "detail": "…"}`, `scimType` only where the RFC names one.
///
/// Errors become SCIM errors in one place: `ProblemMiddleware` hands whatever a `/scim/v2`
/// request threw to `mapping(_:…)`, so the rest of the API's problem+json never shows here.
struct SCIMError: HTTPResponseError, Sendable {
    var status: HTTPResponse.Status
    /// `invalidFilter`, `tooMany`, `uniqueness`, `mutability`, `invalidSyntax`, `invalidPath`,
    /// `noTarget`, `invalidValue`, `invalidVers`, `sensitive`; nil where the RFC names none.
    var scimType: String?
    /// One line for the identity provider's administrator.
    var detail: String
    var headers: HTTPFields
    /// Why a 401 refused the SCIM client (`missing_token`, `invalid_token`), for the log only.
    var reason: String?

    init(_ status: HTTPResponse.Status, _ scimType: String?, _ detail: String, headers: HTTPFields = [:]) {
        self.status = status
        self.scimType = scimType
        self.detail = detail
        self.headers = headers
    }

    /// A store refusal as its SCIM error.
    init(_ refusal: SCIMRefusal) {
        let status: HTTPResponse.Status = switch refusal.status {
        case 404: .notFound
        case 409: .conflict
        case 412: .preconditionFailed
        default: .badRequest
        }
        self.init(status, refusal.scimType, refusal.detail)
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var members: [String: SCIMValue] = [
            "schemas": .array([.string(SCIMSchema.error)]), "status": .string("\(status.code)"), "detail": .string(detail),
        ]
        if let scimType { members["scimType"] = .string(scimType) }
        var headers = self.headers
        headers[.contentType] = SCIMRoutes.mediaType
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try SCIMValue.object(members).encoded())))
    }

    static func invalidSyntax(_ detail: String) -> SCIMError { SCIMError(.badRequest, "invalidSyntax", detail) }
    static func invalidValue(_ detail: String) -> SCIMError { SCIMError(.badRequest, "invalidValue", detail) }
    static func invalidPath(_ detail: String) -> SCIMError { SCIMError(.badRequest, "invalidPath", detail) }
    static func invalidFilter(_ detail: String) -> SCIMError { SCIMError(.badRequest, "invalidFilter", detail) }
    static func mutability(_ detail: String) -> SCIMError { SCIMError(.badRequest, "mutability", detail) }
    static let notFound = SCIMError(.notFound, nil, "No provisioned user has this id.")

    /// A 401 for `reason` (`missing_token`, `invalid_token`: the request log's `reason`).
    static func unauthorized(_ reason: String, _ detail: String) -> SCIMError {
        var error = SCIMError(.unauthorized, nil, detail, headers: [.wwwAuthenticate: #"Bearer realm="tilawa-scim""#])
        error.reason = reason
        return error
    }

    /// Whether `path` is SCIM's, whose errors are SCIM errors.
    static func covers(_ path: String) -> Bool {
        path == "/scim/v2" || path.hasPrefix("/scim/v2/")
    }

    /// What a `/scim/v2` request's `error` answers: a SCIM error as it is; the router's own
    /// (an unknown path 404, a known path with another method 405 with `Allow`, a body that is
    /// not JSON 400 `invalidSyntax`, too large 413); the database down or busy 503 with
    /// `Retry-After`; anything else a logged 500 — one request's failure never reaches the server.
    /// The log names the path as `pseudonyms` shows it.
    static func mapping(_ error: any Error, request: Request, routes: RouteTable, logger: Logger, pseudonyms: LogPseudonyms) -> SCIMError {
        let path = request.uri.path
        let loggedPath = pseudonyms.path(path)
        switch error {
        case let error as SCIMError:
            return error
        case let error as HTTPError:
            if error.status == .notFound, let known = routes.match(path), !known.methods.contains(request.method) {
                let allow = known.methods.map(\.rawValue).joined(separator: ", ")
                return SCIMError(.methodNotAllowed, nil, "\(path) does not answer \(request.method.rawValue); it answers \(allow).",
                                 headers: [.allow: allow])
            }
            switch error.status {
            case .notFound:
                return SCIMError(.notFound, nil, "No SCIM endpoint or resource is at \(path).")
            case .badRequest:
                let why = (error.body ?? "").split(whereSeparator: \.isNewline).joined(separator: " ").prefix(200)
                return .invalidSyntax("The body is not a JSON object SCIM can read\(why.isEmpty ? "" : ": \(why)").")
            case .contentTooLarge:
                return SCIMError(.contentTooLarge, nil, "The body is larger than 64 KiB.")
            default:
                return SCIMError(error.status, nil, error.body ?? error.status.reasonPhrase, headers: error.headers)
            }
        case is NIOTooManyBytesError:
            return SCIMError(.contentTooLarge, nil, "The body is larger than 64 KiB.")
        case let error as StoreError:
            switch error {
            case .unavailable:
                logger.error("database unavailable", metadata: ["error": "\(error)", "path": "\(loggedPath)"])
                return SCIMError(.serviceUnavailable, nil, "The database does not answer just now; nothing was changed. Try again in a minute.",
                                 headers: [.retryAfter: "30"])
            case .busy:
                logger.warning("database busy", metadata: ["error": "\(error)", "path": "\(loggedPath)"])
                return SCIMError(.serviceUnavailable, nil, "Too many changes at once just now; nothing was changed. Try again in a moment.",
                                 headers: [.retryAfter: "2"])
            default:
                logger.error("request failed", metadata: ["error": "\(error)", "path": "\(loggedPath)"])
                return SCIMError(.internalServerError, nil, "Something went wrong on our side; nothing was changed. Try again.")
            }
        case let error as APIProblem:
            return SCIMError(error.status, nil, error.detail, headers: error.headers)
        default:
            logger.error("request failed", metadata: ["error": "\(error)", "path": "\(loggedPath)"])
            return SCIMError(.internalServerError, nil, "Something went wrong on our side; nothing was changed. Try again.")
        }
    }
}
