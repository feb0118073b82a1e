/// The watchdog's beat: one element at once, then one after each `interval`, until the
/// iterating task is cancelled.
///
/// `Task.sleep` rather than a timer: `cancelOnGracefulShutdown()` cancels the task that
/// drives this iterator, the sleep throws, and the sequence ends.
struct WatchdogTicks: AsyncSequence, Sendable {
    typealias Element = ContinuousClock.Instant

    let interval: Duration

    func makeAsyncIterator() -> Iterator {
        Iterator(interval: interval)
    }

    struct Iterator: AsyncIteratorProtocol {
        let interval: Duration
        var started = false

        mutating func next() async -> ContinuousClock.Instant? {
            if started {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return nil
                }
            } else {
                started = true
                if Task.isCancelled { return nil }
            }
            return ContinuousClock.now
        }
    }
}
