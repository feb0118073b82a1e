import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection for what an HTTP client library will not do (vanish mid-body).
///
/// `@unchecked Sendable`: the only state is the descriptor, set in `init` and never changed;
/// reads and writes on it are system calls the kernel serialises, and each test uses a
/// connection from one task at a time.
public final class RawHTTPConnection: @unchecked Sendable {
    public let descriptor: Int32

    public init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard descriptor >= 0, connected == 0 else { throw POSIXError(.ECONNREFUSED) }
    }

    /// S1006's week-12 upload declaring 1,000,000 bytes, of which only the first 300,000 are sent.
    public static func partialUpload(port: Int, token: String, idempotencyKey: String? = nil) throws -> RawHTTPConnection {
        let socket = try RawHTTPConnection(port: port)
        let key = idempotencyKey.map { "Idempotency-Key: \($0)\r\n" } ?? ""
        try socket.send("POST /v1/students/S1006/weeks/12/submissions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
            + "Content-Type: audio/wav\r\n\(key)Content-Length: 1000000\r\n\r\n")
        try socket.send(Data(repeating: 0x52, count: 300_000))
        return socket
    }

    public func send(_ text: String) throws { try send(Data(text.utf8)) }

    public func send(_ data: Data) throws {
        try data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let sent = Glibc.send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                guard sent > 0 else { throw POSIXError(.EPIPE) }
                offset += sent
            }
        }
    }

    /// Whether the server closes the connection within `seconds` (reads and drops whatever
    /// arrives before the end).
    private func waitForClose(seconds: Int) -> Bool {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
        }
    }

    public func close() { Glibc.close(descriptor) }

    /// This end's port (`getsockname`).
    public var localPort: Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether the kernel still holds an established TCP connection from local port `local` to
    /// remote port `remote` (IPv4, `/proc/net/tcp`): after `reset()`, false once the server's
    /// side has taken the reset in — which a loaded machine may do a moment after `close`.
    public static func isEstablished(localPort local: Int, remotePort remote: Int) -> Bool {
        guard let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8) else { return false }
        let wanted = (String(format: "%04X", local), String(format: "%04X", remote))
        return table.split(separator: "\n").dropFirst().contains { line in
            let fields = line.split(separator: " ")
            guard fields.count > 3 else { return false }
            return fields[1].hasSuffix(":" + wanted.0) && fields[2].hasSuffix(":" + wanted.1) && fields[3] == "01"
        }
    }

    /// Closes with a reset (SO_LINGER 0), as a phone whose app was killed leaves a connection.
    public func reset() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        Glibc.close(descriptor)
    }
}

extension RawHTTPConnection {
    /// What arrives until `marker` has been seen (or `TestTime.hangLimit` passes: a hang), as
    /// text. The blocking reads run on a thread of their own, never on the cooperative pool the
    /// server needs.
    public func read(until marker: String) async -> String {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.readBlocking(until: marker, seconds: TestTime.hangSeconds)) }.start()
        }
    }

    /// Whether the server closes the connection (before `TestTime.hangLimit`), off the cooperative pool.
    public func closedByServer() async -> Bool {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.waitForClose(seconds: TestTime.hangSeconds)) }.start()
        }
    }

    private func readBlocking(until marker: String, seconds: Int) -> String {
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received = Data()
        let deadline = Date().addingTimeInterval(TimeInterval(seconds))
        var buffer = [UInt8](repeating: 0, count: 1)
        // One byte at a time: nothing past the marker is taken from the socket.
        while Date() < deadline {
            let count = recv(descriptor, &buffer, 1, 0)
            if count == 0 { break }
            if count < 0 { if errno == EAGAIN || errno == EINTR { continue } else { break } }
            received.append(buffer[0])
            if received.count >= marker.utf8.count, received.suffix(marker.utf8.count).elementsEqual(marker.utf8) { break }
        }
        return String(decoding: received, as: UTF8.self)
    }
}
