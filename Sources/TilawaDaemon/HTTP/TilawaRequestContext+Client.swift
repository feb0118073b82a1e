import NIOCore

extension TilawaRequestContext {
    /// The address of the connection the request came on, for the log: `203.0.113.7` (the
    /// port left off), or `-` when there is none (router tests). Behind a reverse proxy it is
    /// the proxy's: `X-Forwarded-For` is the client's word, not the connection's.
    var clientAddress: String {
        guard let address = channel?.remoteAddress else { return "-" }
        return address.ipAddress ?? address.pathname ?? "\(address)"
    }
}
