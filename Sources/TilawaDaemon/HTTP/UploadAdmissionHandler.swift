import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOHTTPTypes

/// Refuses an upload at its request head, in the connection's pipeline, when every upload
/// slot is taken: `503 too_many_uploads` with `Retry-After` and `Connection: close`, written
/// here; the request never reaches the router and its body is dropped as it arrives, never
/// buffered. Refused in a handler instead, each such request would first get a request task
/// and a body stream holding up to ten parts (~160 KiB with 16 KiB reads), which is what made
/// memory grow with the number of clients waiting for a slot.
///
/// The binding check is still `UploadReceiver.withSlot`: a slot freed or taken between this
/// look and the handler only moves a refusal one way or the other.
final class UploadAdmissionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let slots: UploadSlots
    private let logger: Logger
    /// How the log names the student a path is about.
    private let pseudonyms: LogPseudonyms
    /// The current request was refused here: its parts are dropped until its end.
    private var refusing = false

    init(slots: UploadSlots, logger: Logger, pseudonyms: LogPseudonyms) {
        self.slots = slots
        self.logger = logger
        self.pseudonyms = pseudonyms
    }

    /// Whether a request of this method and path carries a recording (the routes that take an
    /// upload slot): a submission, a reply, a voice comment, an annotation (its spoken correction),
    /// a tus creation or append, an IETF append.
    static func isUpload(method: HTTPRequest.Method, path: String) -> Bool {
        let segments = path.split(separator: "?", maxSplits: 1).first.map { $0.split(separator: "/") } ?? []
        switch (method, segments.count) {
        case (.post, 6):
            return segments[0] == "v1" && segments[1] == "students" && segments[3] == "weeks"
                && (segments[5] == "submissions" || segments[5] == "uploads")
        case (.post, 4):
            return segments[0] == "v1" && ((segments[1] == "submissions" && (segments[3] == "feedback" || segments[3] == "annotations"))
                || (segments[1] == "feedback" && segments[3] == "comments"))
        case (.patch, 3):
            return segments[0] == "v1" && segments[1] == "uploads"
        default:
            return false
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(head):
            let path = head.path ?? ""
            if Self.isUpload(method: head.method, path: path), slots.level >= slots.limit {
                refusing = true
                refuse(context: context, path: path, fromPage: head.headerFields[.origin] != nil)
                return
            }
            refusing = false
        case .body, .end:
            if refusing {
                context.read()
                return
            }
        }
        context.fireChannelRead(data)
    }

    private func refuse(context: ChannelHandlerContext, path: String, fromPage: Bool) {
        let problem = UploadReceiver.tooManyUploads(limit: slots.limit)
        let body = (try? problem.body(instance: String(path.split(separator: "?").first ?? ""))) ?? Data()
        var response = HTTPResponse(status: problem.status)
        response.headerFields = problem.headers
        response.headerFields[.contentType] = "application/problem+json"
        response.headerFields[.contentLength] = "\(body.count)"
        if fromPage {
            // As `CORSHeadersMiddleware` would: a page can read the 503 and its Retry-After.
            response.headerFields[.accessControlAllowOrigin] = "*"
            response.headerFields[.accessControlExposeHeaders] = CORSHeadersMiddleware.exposedHeaders
        }
        logger.info("request", metadata: ["path": "\(pseudonyms.path(path))", "status": "503", "code": "\(problem.code)", "refused": "at the head"])
        context.write(wrapOutboundOut(.head(response)), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(bytes: body))), promise: nil)
        // Through the pipeline from here: `UploadStreamGuard` sees `Connection: close` and
        // closes lingeringly once the answer is out.
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.read()
    }
}
