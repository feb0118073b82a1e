import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Per-connection limits for request bodies that arrive slowly or in bulk.
///
/// - **Memory.** Each connection reads at most `maximumReadBytes` from its socket at a time.
///   Between the socket and the staging file a body waits in NIO's inbound buffers: up to the
///   async channel's high watermark (10 parts) plus one read batch (4 reads). With NIO's default
///   64 KiB reads that is ~1 MB per connection, 64 uploads at once ~60 MB; at 16 KiB it is a
///   quarter of that. Writes to the staging file stay large (`UploadReceiver.writeBufferBytes`).
/// - **Time.** A request's body must arrive within `http.upload_timeout_seconds` of its head.
///   A phone that loses its network without closing the connection would otherwise hold the
///   connection and an open staging file forever; past the deadline the connection is closed,
///   the body stream fails, and the upload leaves nothing behind (its `Idempotency-Key` is only
///   taken once the whole body is in, so a retry starts afresh). The time to answer (analysis)
///   is not counted: the deadline ends with the body.
/// - **Closing.** A response that says `Connection: close` (a refusal sent before the body
///   was read, `413`, `503 too_many_uploads`) ends the connection once it is written, instead
///   of waiting for a body the client will not send; an HTTP/1.0 request without keep-alive
///   is marked `Connection: close` on its way in (`HTTP10ConnectionHandler`), so it ends too.
///   The close lingers (as nginx's `lingering_close`): the write side is shut at once (the
///   client reads the whole answer and an end of stream), what the client still sends is read
///   and dropped here — never buffered — and the connection closes when the client closes
///   its side or `lingerTime` has passed. Closing with unread bytes would make the kernel
///   reset the connection, and a client still sending its body (no `Expect: 100-continue`)
///   would lose the answer it was sent.
final class UploadStreamGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The largest single read from a client's socket.
    static let maximumReadBytes = 16 * 1024

    private let bodyDeadline: TimeAmount
    private let logger: Logger
    /// How the log names the student a path is about.
    private let pseudonyms: LogPseudonyms
    private var pending: Scheduled<Void>?
    private var closeAfterResponse = false
    /// The answer is out and the write side shut: inbound bytes are dropped until the close.
    private var lingering = false

    /// How long a closing connection keeps dropping what the client still sends.
    static let lingerTime = TimeAmount.seconds(5)

    init(bodyDeadline: TimeAmount, logger: Logger, pseudonyms: LogPseudonyms) {
        self.bodyDeadline = bodyDeadline
        self.logger = logger
        self.pseudonyms = pseudonyms
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let allocator = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: Self.maximumReadBytes)
        do {
            try context.channel.syncOptions?.setOption(ChannelOptions.recvAllocator, value: allocator)
        } catch {
            logger.warning("could not bound the read size", metadata: ["error": "\(error)"])
        }
        // The HTTP version is gone once a request is converted to HTTP types: look before.
        do {
            let codec = try context.pipeline.syncOperations.context(handlerType: HTTP1ToHTTPServerCodec.self)
            try context.pipeline.syncOperations.addHandler(HTTP10ConnectionHandler(), position: .before(codec.handler))
        } catch {
            logger.warning("could not watch for HTTP/1.0 requests", metadata: ["error": "\(error)"])
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case let .head(response) where response.status.kind != .informational:
            closeAfterResponse = response.headerFields[.connection]?.lowercased() == "close"
            context.write(data, promise: promise)
        case .end where closeAfterResponse:
            closeAfterResponse = false
            let written = promise ?? context.eventLoop.makePromise()
            context.writeAndFlush(data, promise: written)
            // On the channel's event loop (a write completes there), where the handler lives.
            written.futureResult.assumeIsolated().whenComplete { _ in self.linger(context: context) }
        default:
            context.write(data, promise: promise)
        }
    }

    /// Shuts the write side, then drops inbound bytes until the client closes or `lingerTime`.
    private func linger(context: ChannelHandlerContext) {
        cancelDeadline()
        lingering = true
        let channel = context.channel
        context.close(mode: .output).whenFailure { error in
            // Already half-closed (the server's own end of a `Connection: close` exchange): keep lingering.
            if let error = error as? ChannelError, error == .outputClosed { return }
            channel.close(promise: nil)
        }
        pending = context.eventLoop.scheduleTask(in: Self.lingerTime) { channel.close(promise: nil) }
        context.read()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelDeadline()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelDeadline()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if lingering {
            // Dropped, and more asked for: the request's reader is no longer listening.
            context.read()
            return
        }
        switch unwrapInboundIn(data) {
        case let .head(head):
            cancelDeadline()
            let channel = context.channel
            let logger = logger
            let path = pseudonyms.path(head.path ?? "")
            let seconds = bodyDeadline.nanoseconds / 1_000_000_000
            pending = context.eventLoop.scheduleTask(in: bodyDeadline) {
                logger.notice("request body too slow: connection closed", metadata: ["path": "\(path)", "limit_s": "\(seconds)"])
                channel.close(promise: nil)
            }
        case .body:
            break
        case .end:
            cancelDeadline()
        }
        context.fireChannelRead(data)
    }

    private func cancelDeadline() {
        pending?.cancel()
        pending = nil
    }
}
