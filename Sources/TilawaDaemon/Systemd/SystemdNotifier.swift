#if canImport(Glibc)
import Glibc
#endif

/// Speaks systemd's service notification protocol (`sd_notify(3)`) natively, without libsystemd.
///
/// Each call sends one datagram of newline-separated `KEY=VALUE` assignments to the
/// `AF_UNIX`/`SOCK_DGRAM` socket systemd named in `$NOTIFY_SOCKET` — a filesystem path or,
/// with a leading `@`, a name in Linux's abstract namespace. A fresh socket is opened for
/// every message: the daemon sends a handful per minute, and holding no descriptor means
/// there is nothing to share between tasks or to close.
///
/// The unit must allow the main process to notify (`NotifyAccess=main`, the default for
/// `Type=notify`); systemd ignores messages it cannot attribute to the main PID.
public struct SystemdNotifier: Sendable {
    /// The socket address as systemd gave it: an absolute path, or `@name` for the abstract namespace.
    public let socketPath: String

    /// A notifier for `$NOTIFY_SOCKET`, or nil when the variable is unset or empty (not run by
    /// systemd, or not as `Type=notify`).
    ///
    /// The address is checked when a message is sent, not here, so a malformed value shows up
    /// as an error from ``notify(_:)`` that the caller can log.
    public init?(environment: [String: String]) {
        guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty else { return nil }
        self.init(socketPath: path)
    }

    /// A notifier for an explicit socket address (`/run/…` or `@name`).
    public init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// Sends `state` — one or more `KEY=VALUE` lines joined with `\n` — as one datagram.
    ///
    /// Known assignments: `READY=1`, `RELOADING=1`, `STOPPING=1`, `WATCHDOG=1`, `STATUS=…`,
    /// `MAINPID=…`, `ERRNO=…` (`sd_notify(3)`). The text is sent as given.
    ///
    /// - Throws: ``SystemdNotificationError`` when the message is empty, the address is not
    ///   an absolute path or `@name` or does not fit `sun_path`, or the kernel refuses the
    ///   datagram (for example `ECONNREFUSED` when nothing listens there any more).
    public func notify(_ state: String) throws(SystemdNotificationError) {
        let message = Array(state.utf8)
        guard !message.isEmpty else { throw .emptyMessage }
        var address = try Self.socketAddress(socketPath)

        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .socketFailed(errno: errno) }
        defer { close(descriptor) }

        var sent: Int
        var failure: Int32 = 0
        repeat {
            sent = withUnsafePointer(to: &address.storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    message.withUnsafeBytes { bytes in
                        sendto(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), socketAddress, address.length)
                    }
                }
            }
            failure = sent < 0 ? errno : 0
        } while sent < 0 && failure == EINTR
        guard sent >= 0 else { throw .sendFailed(socketPath: socketPath, errno: failure) }
        // A datagram goes whole or not at all; anything else would be a kernel surprise worth reporting.
        guard sent == message.count else { throw .incompleteSend(sent: sent, expected: message.count) }
    }

    /// Tells systemd start-up is complete (`READY=1`), with an optional `STATUS=` line.
    ///
    /// Send it once the daemon serves requests: under `Type=notify` systemd holds back units
    /// ordered after this one, and `systemctl start` waits, until it arrives.
    public func ready(status: String? = nil) throws(SystemdNotificationError) {
        var lines = ["READY=1"]
        if let status { lines.append(Self.statusLine(status)) }
        try notify(lines.joined(separator: "\n"))
    }

    /// Tells systemd the daemon is shutting down (`STOPPING=1`), so the stop is not mistaken for a crash.
    public func stopping() throws(SystemdNotificationError) {
        try notify("STOPPING=1")
    }

    /// Pings the service watchdog (`WATCHDOG=1`); systemd kills and, per `Restart=`, restarts the
    /// service when no ping arrives within `WatchdogSec=`.
    public func watchdog() throws(SystemdNotificationError) {
        try notify("WATCHDOG=1")
    }

    /// Sets the one-line status `systemctl status` shows (`STATUS=…`).
    ///
    /// Line breaks in `text` become spaces: a newline would otherwise start a new assignment
    /// that systemd would obey.
    public func status(_ text: String) throws(SystemdNotificationError) {
        try notify(Self.statusLine(text))
    }

    /// How often to ping the watchdog: half of `$WATCHDOG_USEC` (as `sd_watchdog_enabled(3)`
    /// advises), or nil when the watchdog is off for this process.
    ///
    /// The watchdog is off when `$WATCHDOG_USEC` is unset, not a positive integer, or when
    /// `$WATCHDOG_PID` is set and is not `processID` (the variables were inherited from a parent).
    ///
    /// - Parameter processID: This process's id; tests pass another to check the `$WATCHDOG_PID` rule.
    public static func watchdogInterval(environment: [String: String], processID: Int32 = getpid()) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"],
              let microseconds = Int64(text), microseconds > 0 else { return nil }
        if let owner = environment["WATCHDOG_PID"] {
            // As sd_watchdog_enabled: a set but unparsable WATCHDOG_PID disables the watchdog too.
            guard let pid = Int32(owner), pid == processID else { return nil }
        }
        return .microseconds(microseconds) / 2
    }

    static func statusLine(_ text: String) -> String {
        "STATUS=" + String(text.map { $0.isNewline ? " " : $0 })
    }

    /// A `sockaddr_un` and the length to pass with it.
    struct SocketAddress {
        var storage: sockaddr_un
        var length: socklen_t
    }

    /// Encodes `$NOTIFY_SOCKET` as systemd does (`sockaddr_un_set_path`): `@name` becomes a
    /// leading NUL and the length covers exactly the name (abstract names are length-delimited,
    /// so a trailing NUL would name another socket); a path is NUL-terminated and counted with it.
    static func socketAddress(_ path: String) throws(SystemdNotificationError) -> SocketAddress {
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: storage.sun_path)
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? MemoryLayout<sa_family_t>.size

        var bytes = Array(path.utf8)
        let isAbstract: Bool
        switch bytes.first {
        case UInt8(ascii: "@"):
            isAbstract = true
            bytes[0] = 0
        case UInt8(ascii: "/"):
            isAbstract = false
            guard !bytes.contains(0) else { throw .unsupportedAddress(path) }
        default:
            // Relative paths, `vsock:` addresses (systemd ≥ 254) and the like are not spoken here.
            throw .unsupportedAddress(path)
        }
        // A path needs room for its terminating NUL; an abstract name may fill sun_path.
        let limit = isAbstract ? capacity : capacity - 1
        guard bytes.count <= limit else { throw .addressTooLong(path, limit: limit) }

        withUnsafeMutableBytes(of: &storage.sun_path) { sunPath in
            sunPath.copyBytes(from: bytes)
        }
        let length = pathOffset + bytes.count + (isAbstract ? 0 : 1)
        return SocketAddress(storage: storage, length: socklen_t(length))
    }
}
