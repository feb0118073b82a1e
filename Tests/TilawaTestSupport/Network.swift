import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP port nothing listens on right now (bound to port 0, read back, closed).
public func unusedPort() throws -> Int {
    let (descriptor, port) = try boundSocket()
    close(descriptor)
    return port
}

/// A loopback listener that completes TCP handshakes (the kernel does) but never answers:
/// a hung daemon. Close the descriptor when done.
public func silentListener() throws -> (descriptor: Int32, port: Int) {
    let (descriptor, port) = try boundSocket()
    guard listen(descriptor, 8) == 0 else {
        close(descriptor)
        throw PortError.socket(errno)
    }
    return (descriptor, port)
}

private func boundSocket() throws -> (Int32, Int) {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw PortError.socket(errno) }
    var keep = false
    defer { if !keep { close(descriptor) } }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
    }
    guard bound == 0 else { throw PortError.socket(errno) }
    let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    guard named == 0 else { throw PortError.socket(errno) }
    keep = true
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
}

public enum PortError: Error { case socket(Int32) }

/// Writes a small file at `path`, creating its folders.
public func writeFile(_ path: String, bytes: Int = 16) throws {
    try FileManager.default.createDirectory(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path,
                                            withIntermediateDirectories: true)
    try Data(repeating: 0x55, count: bytes).write(to: URL(fileURLWithPath: path))
}
