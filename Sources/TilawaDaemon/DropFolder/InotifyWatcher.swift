import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Watches the drop folder with inotify (through Glibc): the root for new coach folders and
/// each coach folder for files closed after writing or moved in.
///
/// Events are collected on a dedicated thread blocked in `poll(2)` (never on the NIO event
/// loops nor the cooperative pool) and handed over as "complete" paths plus a wake-up; an
/// `IN_Q_OVERFLOW` asks for a full rescan. Where inotify is unavailable, `start` fails and the
/// service polls instead.
///
/// `@unchecked Sendable`: `descriptor` and `stopPipe` are set in `init` and never change;
/// the mutable state (`watches`, `completed`, `overflowed`, `running`) lives in a `Mutex`.
final class InotifyWatcher: @unchecked Sendable {
    private struct State {
        var watches: [Int32: String] = [:]
        var events: [(path: String, complete: Bool)] = []
        var overflowed = false
        var running = true
    }

    private let descriptor: Int32
    private let stopPipe: (read: Int32, write: Int32)
    private let state = Mutex(State())
    private let onEvent: @Sendable () -> Void

    /// Opens an inotify instance; nil when the kernel or the sandbox refuses one.
    init?(onEvent: @escaping @Sendable () -> Void) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            close(fd)
            return nil
        }
        for end in pipeEnds {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        descriptor = fd
        stopPipe = (pipeEnds[0], pipeEnds[1])
        self.onEvent = onEvent
    }

    deinit {
        close(descriptor)
        close(stopPipe.read)
        close(stopPipe.write)
    }

    /// Watches `directory` (idempotent). Returns false when the watch cannot be added.
    @discardableResult
    func watch(_ directory: String, root: Bool) -> Bool {
        // IN_DONT_FOLLOW: a coach folder that is a symbolic link is never watched through it.
        // IN_CREATE in coach folders: links and FIFOs have no close-after-write to report.
        let mask: UInt32 = root
            ? UInt32(IN_CREATE | IN_MOVED_TO | IN_ONLYDIR) | UInt32(IN_DONT_FOLLOW)
            : UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MODIFY | IN_CREATE | IN_ONLYDIR) | UInt32(IN_DONT_FOLLOW)
        let wd = inotify_add_watch(descriptor, directory, mask)
        guard wd >= 0 else { return false }
        state.withLock { $0.watches[wd] = directory }
        return true
    }

    /// Starts the reader thread.
    func start() {
        let thread = Thread { [self] in readLoop() }
        thread.name = "tilawa-inotify"
        thread.start()
    }

    /// Stops the reader thread.
    func stop() {
        state.withLock { $0.running = false }
        var byte: UInt8 = 1
        _ = write(stopPipe.write, &byte, 1)
    }

    /// File events since the last call, in order (`complete`: closed after writing or moved
    /// in; otherwise created or written to), and whether events were lost.
    func drain() -> (events: [(path: String, complete: Bool)], overflowed: Bool) {
        state.withLock { state in
            defer {
                state.events.removeAll()
                state.overflowed = false
            }
            return (state.events, state.overflowed)
        }
    }

    private func readLoop() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while state.withLock({ $0.running }) {
            var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, 1_000)
            if ready < 0 && errno != EINTR { return }
            guard ready > 0, fds[0].revents & Int16(POLLIN) != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { continue }
            parse(buffer, count: count)
            onEvent()
        }
    }

    private func parse(_ buffer: [UInt8], count: Int) {
        let header = MemoryLayout<inotify_event>.size
        var offset = 0
        var events: [(path: String, complete: Bool)] = []
        var overflowed = false
        var newDirectories: [String] = []
        buffer.withUnsafeBytes { raw in
            while offset + header <= count {
                let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                let nameLength = Int(event.len)
                var name = ""
                if nameLength > 0 {
                    let bytes = raw[(offset + header)..<(offset + header + nameLength)].prefix { $0 != 0 }
                    name = String(decoding: bytes, as: UTF8.self)
                }
                offset += header + nameLength
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    overflowed = true
                    continue
                }
                guard let directory = state.withLock({ $0.watches[event.wd] }), !name.isEmpty else { continue }
                let path = directory + "/" + name
                if event.mask & UInt32(IN_ISDIR) != 0 {
                    newDirectories.append(path)
                } else {
                    events.append((path, event.mask & UInt32(IN_CLOSE_WRITE | IN_MOVED_TO) != 0))
                }
            }
        }
        state.withLock { state in
            state.events += events
            state.overflowed = state.overflowed || overflowed || !newDirectories.isEmpty
        }
    }
}
