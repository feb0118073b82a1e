import Logging
import NIOCore
import NIOHTTPTypes

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
final class UploadStreamGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    /// The largest single read from a client's socket.
    static let maximumReadBytes = 16 * 1024

    private let bodyDeadline: TimeAmount
    private let logger: Logger
    private var pending: Scheduled<Void>?

    init(bodyDeadline: TimeAmount, logger: Logger) {
        self.bodyDeadline = bodyDeadline
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let allocator = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: Self.maximumReadBytes)
        do {
            try context.channel.syncOptions?.setOption(ChannelOptions.recvAllocator, value: allocator)
        } catch {
            logger.warning("could not bound the read size", metadata: ["error": "\(error)"])
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelDeadline()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelDeadline()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(head):
            cancelDeadline()
            let channel = context.channel
            let logger = logger
            let path = head.path ?? ""
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
