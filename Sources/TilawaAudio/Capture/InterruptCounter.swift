import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Counts Ctrl-C (SIGINT) presses instead of letting the first one end the process, so a
/// capture loop can finish the recording on the first and abort on the second.
///
/// `start()` sets SIGINT's disposition to ignore and delivers it to a `DispatchSource` on
/// a global queue, whose handler only bumps an atomic counter; the loop reads `count`
/// between blocks. Nothing runs until `start()` (no work begins in `init`); `stop()`
/// restores the default disposition. Not `Sendable`: one command owns it.
public final class InterruptCounter {
    /// The counter shared with the signal handler, which runs on another thread.
    private final class Presses: Sendable {
        let value = Atomic<Int>(0)
    }

    private let presses = Presses()
    private var source: (any DispatchSourceSignal)?

    /// A counter at zero, not yet listening.
    public init() {}

    deinit { stop() }

    /// How many times SIGINT has arrived since `start()`.
    public var count: Int { presses.value.load(ordering: .acquiring) }

    /// Starts counting SIGINT instead of dying of it.
    public func start() {
        guard source == nil else { return }
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        let presses = self.presses
        source.setEventHandler { presses.value.add(1, ordering: .releasing) }
        source.resume()
        self.source = source
    }

    /// Waits up to `timeout` seconds for the count to exceed `count`; true if it did.
    ///
    /// Polls every 10 ms: it runs once, for a second or two, after a recording stopped.
    public func waitForPress(after count: Int, timeout: Double) -> Bool {
        var waited = 0.0
        while self.count <= count {
            guard waited < timeout else { return false }
            usleep(10_000)
            waited += 0.01
        }
        return true
    }

    /// Stops counting; SIGINT ends the process again.
    public func stop() {
        guard let source else { return }
        source.cancel()
        self.source = nil
        signal(SIGINT, SIG_DFL)
    }
}
