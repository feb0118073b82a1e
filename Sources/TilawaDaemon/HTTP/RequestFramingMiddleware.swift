import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTPTypes
import Synchronization

/// How a request body arrives (RFC 9112 §6–7, RFC 9110 §10.1.1):
///
/// - A transfer coding other than `chunked` (`gzip, chunked`) is `501`: the body would be
///   read as if it were not compressed.
/// - `Expect: 100-continue` is answered with `100 Continue` only when the handler starts to
///   read the body, that is once the headers, the token and the limits have passed; a refusal
///   before that carries `Connection: close`, so the client does not send a body nobody reads
///   (and the connection closes once the answer is out, `UploadStreamGuard`).
struct RequestFramingMiddleware: RouterMiddleware {
    typealias Context = TilawaRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let codings = request.headers[.transferEncoding],
           codings.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces).lowercased() != "chunked" }) {
            context.closeInput()
            return try APIProblem(.notImplemented, code: "unsupported_transfer_coding",
                                  detail: "Only chunked transfer coding is supported; send the body uncompressed.",
                                  headers: [.connection: "close"])
                .response(from: request, context: context)
        }
        guard request.headers[.expect]?.lowercased() == "100-continue", let channel = context.channel else {
            return try await next(request, context)
        }
        let gate = ContinueGate(channel: channel)
        var request = request
        request.body = RequestBody(asyncSequence: ContinueBody(base: request.body, gate: gate))
        var response = try await next(request, context)
        if !gate.sent {
            response.headers[.connection] = "close"
        }
        return response
    }
}
