import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// SIGINT presses since the process started: the only state the handler touches. A global,
/// because a C signal handler carries no context; an atomic add is async-signal-safe.
private let interruptPresses = Atomic<Int>(0)

/// Counts Ctrl-C (SIGINT) presses instead of letting the first one end the process, so a
/// capture loop can finish the recording on the first and abort on the second.
///
/// `start()` installs a `sigaction` handler that only bumps an atomic counter, and unblocks
/// SIGINT in the calling thread (the capture loop's), which reads `count` between blocks.
/// The unblocking matters: the command runs on a thread of Swift's pool, which, as every
/// thread libdispatch starts and every thread those start, blocks all signals; with no
/// thread taking SIGINT a handler would never run.
///
/// Not a dispatch signal source with `SIG_IGN`, as before: libdispatch installs its own
/// handler only for the first source of a signal in a process, and forwards a signal that
/// lands on another thread to the thread that first registered it, which need not be the
/// one reading its `signalfd`; a Ctrl-C was lost on a loaded machine (CI), and a counter
/// started a second time in one process lost every press (the test shows it).
///
/// `SA_RESTART` restarts what can be restarted; the capture loop recovers the rest
/// (`EINTR`). Nothing runs until `start()`; `stop()`, on the thread that started, blocks
/// SIGINT there again and restores the default disposition. Not `Sendable`: one command
/// owns it, and one counter listens at a time.
public final class InterruptCounter {
    /// The presses already counted when this counter started.
    private var baseline = 0
    private var listening = false
    /// The starting thread's signal mask before `start()`.
    private var previousMask = sigset_t()

    /// A counter at zero, not yet listening.
    public init() {}

    deinit { stop() }

    /// How many times SIGINT has arrived since `start()`.
    public var count: Int { interruptPresses.load(ordering: .acquiring) - baseline }

    /// Starts counting SIGINT instead of dying of it; call `stop()` on the same thread.
    public func start() {
        guard !listening else { return }
        // Touches the global first, so the handler never runs its lazy initialisation.
        baseline = interruptPresses.load(ordering: .acquiring)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            interruptPresses.add(1, ordering: .releasing)
        }
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        sigaction(SIGINT, &action, nil)
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &unblock, &previousMask)
        listening = true
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
        guard listening else { return }
        listening = false
        // Blocked again first: a press arriving in between stays pending, as before `start()`.
        pthread_sigmask(SIG_SETMASK, &previousMask, nil)
        signal(SIGINT, SIG_DFL)
    }
}
