#if canImport(Glibc)
import Glibc
#endif

/// Why a message to systemd's notification socket was not sent.
public enum SystemdNotificationError: Error, Equatable, CustomStringConvertible {
    /// Nothing to send.
    case emptyMessage
    /// `$NOTIFY_SOCKET` is neither an absolute path nor `@name`.
    case unsupportedAddress(String)
    /// The address does not fit `sockaddr_un.sun_path` (`limit` bytes, the `@` counted).
    case addressTooLong(String, limit: Int)
    /// `socket(2)` failed.
    case socketFailed(errno: Int32)
    /// `sendto(2)` failed, e.g. `ECONNREFUSED` or `ENOENT` when nobody listens at the address.
    case sendFailed(socketPath: String, errno: Int32)
    /// The kernel took part of a datagram.
    case incompleteSend(sent: Int, expected: Int)

    /// A stable, machine-readable name for the failure.
    public var code: String {
        switch self {
        case .emptyMessage: "empty_message"
        case .unsupportedAddress: "unsupported_address"
        case .addressTooLong: "address_too_long"
        case .socketFailed: "socket_failed"
        case .sendFailed: "send_failed"
        case .incompleteSend: "incomplete_send"
        }
    }

    /// One line for a log.
    public var description: String {
        switch self {
        case .emptyMessage:
            "an empty notification cannot be sent"
        case .unsupportedAddress(let path):
            "NOTIFY_SOCKET \(path) is neither an absolute path nor an @abstract name"
        case .addressTooLong(let path, let limit):
            "NOTIFY_SOCKET \(path) is longer than the \(limit) bytes a unix socket address holds"
        case .socketFailed(let code):
            "cannot open a unix datagram socket: \(Self.describe(code))"
        case .sendFailed(let path, let code):
            "cannot send to NOTIFY_SOCKET \(path): \(Self.describe(code))"
        case .incompleteSend(let sent, let expected):
            "only \(sent) of \(expected) bytes of the notification were sent"
        }
    }

    private static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return "\(String(cString: text)) (errno \(code))"
    }
}
