import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real `AF_UNIX`/`SOCK_DGRAM` socket standing in for systemd's notification socket.
///
/// Bound to a filesystem path or, for `@name`, to an abstract name. Reads never block a
/// thread: `receive` polls with `MSG_DONTWAIT` and sleeps between tries, up to a bound that
/// only stops a broken test from hanging.
public final class SystemdTestSocket: Sendable {
    /// The address to hand to `SystemdNotifier` (`/…` or `@name`).
    public let address: String
    private let descriptor: Int32

    public enum Failure: Error, CustomStringConvertible {
        case system(String, Int32)
        case nothingArrived(Duration)
        case addressTooLong(String)

        public var description: String {
            switch self {
            case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
            case .nothingArrived(let bound): "no datagram arrived within \(bound)"
            case .addressTooLong(let address): "\(address) does not fit sun_path"
            }
        }
    }

    /// Binds a socket at `address`; `@name` binds `name` in the abstract namespace, the length
    /// covering the name only (no trailing NUL), as systemd binds its own.
    public init(address: String) throws {
        self.address = address
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure.system("socket", errno) }

        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(address.utf8)
        let isAbstract = bytes.first == UInt8(ascii: "@")
        if isAbstract { bytes[0] = 0 }
        guard bytes.count <= MemoryLayout.size(ofValue: storage.sun_path) - (isAbstract ? 0 : 1) else {
            close(descriptor)
            throw Failure.addressTooLong(address)
        }
        withUnsafeMutableBytes(of: &storage.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (isAbstract ? 0 : 1))
        let result = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard result == 0 else {
            let code = errno
            close(descriptor)
            throw Failure.system("bind", code)
        }
    }

    deinit {
        close(descriptor)
        if address.hasPrefix("/") { unlink(address) }
    }

    /// The next datagram, exactly as sent.
    public func receive(bound: Duration = .seconds(120)) async throws -> String {
        let deadline = ContinuousClock.now + bound
        while true {
            if let message = try receiveNow() { return message }
            guard ContinuousClock.now < deadline else { throw Failure.nothingArrived(bound) }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Every datagram already queued, without waiting.
    public func drain() throws -> [String] {
        var messages: [String] = []
        while let message = try receiveNow() { messages.append(message) }
        return messages
    }

    private func receiveNow() throws -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if count >= 0 { return String(decoding: buffer[..<count], as: UTF8.self) }
        let code = errno
        guard code == EAGAIN || code == EWOULDBLOCK || code == EINTR else { throw Failure.system("recv", code) }
        return nil
    }
}

/// A unique abstract socket name for one test.
public func abstractTestAddress() -> String {
    "@tilawa-test-\(UUID().uuidString)"
}
