import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Marks an HTTP/1.0 request that did not ask for keep-alive (and any request whose
/// `Connection` header says it will not persist) as `Connection: close` before it is converted
/// to HTTP types, which carry no version: the server then closes after the response, as
/// RFC 9112 §9.3 asks, instead of holding the connection until the idle timeout.
final class HTTP10ConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case var .head(head) = unwrapInboundIn(data), !head.isKeepAlive else {
            context.fireChannelRead(data)
            return
        }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}
