import Foundation
import Synchronization
import Testing
@testable import TilawaAudio

#if canImport(Glibc)
import Glibc
#endif

/// The capture's Ctrl-C counter counts a press whichever thread the kernel hands it to.
/// Serialized: both tests set the process's one SIGINT disposition.
@Suite("Ctrl-C counting", .serialized)
struct InterruptCounterTests {
    /// A thread that takes SIGINT (most threads of a capture do not block it) receives a
    /// press aimed at it. With `SIG_IGN` and a dispatch signal source the press was dropped
    /// there as ignored.
    @Test("a press delivered to a thread that does not block SIGINT is counted")
    func pressOnAnUnblockedThread() throws {
        let counter = InterruptCounter()
        counter.start()
        defer { counter.stop() }
        let ready = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let target = ThreadHandle()
        let thread = Thread {
            var unblock = sigset_t()
            sigemptyset(&unblock)
            sigaddset(&unblock, SIGINT)
            pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
            target.value.withLock { $0 = pthread_self() }
            ready.signal()
            done.wait()
        }
        thread.start()
        ready.wait()
        defer { done.signal() }
        let handle = try #require(target.value.withLock { $0 })
        #expect(pthread_kill(handle, SIGINT) == 0)
        #expect(counter.waitForPress(after: 0, timeout: 300), "the press was dropped")
        #expect(counter.count == 1)
    }

    /// The command's own thread, like every thread of Swift's pool, blocks all signals: the
    /// counter takes SIGINT there itself. A counter started a second time in one process
    /// counted nothing with the dispatch signal source.
    @Test("a press to the counting thread is counted, by a first and by a second counter")
    func countsFromStart() {
        var all = sigset_t()
        sigfillset(&all)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &all, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let first = InterruptCounter()
        first.start()
        raise(SIGINT)
        #expect(first.waitForPress(after: 0, timeout: 300))
        first.stop()
        let second = InterruptCounter()
        second.start()
        defer { second.stop() }
        #expect(second.count == 0)
        raise(SIGINT)
        #expect(second.waitForPress(after: 0, timeout: 300))
        #expect(second.count == 1)
    }
}

/// A thread's handle, handed from the thread to the test.
private final class ThreadHandle: Sendable {
    let value = Mutex<pthread_t?>(nil)
}
