import Foundation
import NIOCore
import Synchronization

/// The slowest pace an upload body may keep (`http.min_upload_bytes_per_second` averaged
/// over each `http.min_upload_rate_window_seconds`).
struct MinimumBodyRate: Sendable, Hashable {
    var bytesPerSecond: Int
    var window: TimeInterval

    /// Bytes that must arrive in each window.
    var bytesPerWindow: Int { Int((Double(bytesPerSecond) * window).rounded(.up)) }
}

/// Watches one upload body's pace and cuts it when a window passes with fewer bytes than
/// the minimum: the connection's input is shut (the body's reader sees its stream end with
/// an error and frees the upload's slot) and `tooSlow` tells the reader to answer 408.
///
/// Without it a client trickling a byte now and then holds a slot until
/// `http.upload_timeout_seconds`; with `http.max_uploads_per_principal` the damage is one
/// principal's share, but each slot still costs the pool.
///
/// The clock starts at the first read of the body (`begin()`): the time a client waits for
/// `100 Continue` and the time the server spends judging afterwards are not body time.
///
/// `Sendable` on its own: all state is in a `Mutex`; the channel is `Sendable`.
final class BodyRateWatch: Sendable {
    private struct State {
        var bytes = 0
        var started = false
        var finished = false
        var tooSlow = false
        var task: RepeatedTask?
    }

    private let state = Mutex(State())
    private let rate: MinimumBodyRate?
    private let channel: (any Channel)?

    /// A watch over the body arriving on `channel`; nil `rate` (or a zero one) watches nothing.
    init(rate: MinimumBodyRate?, channel: (any Channel)?) {
        self.rate = rate.flatMap { $0.bytesPerSecond > 0 ? $0 : nil }
        self.channel = channel
    }

    /// The body's reader asks for its first part: the windows start.
    func begin() {
        guard let rate, let channel else { return }
        let start = state.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started && !state.finished
        }
        guard start else { return }
        let window = TimeAmount.nanoseconds(Int64(rate.window * 1_000_000_000))
        let task = channel.eventLoop.scheduleRepeatedTask(initialDelay: window, delay: window) { [self] task in
            self.endWindow(task, minimum: rate.bytesPerWindow)
        }
        let finishedMeanwhile = state.withLock { state -> Bool in
            state.task = task
            return state.finished
        }
        if finishedMeanwhile { task.cancel() }
    }

    /// Bytes of the body have arrived.
    func count(_ bytes: Int) {
        state.withLock { $0.bytes += bytes }
    }

    /// The body ended (whole or not): the watch stops without judging the last, partial window.
    func finish() {
        let task = state.withLock { state -> RepeatedTask? in
            state.finished = true
            defer { state.task = nil }
            return state.task
        }
        task?.cancel()
    }

    /// The body was cut for its pace.
    var tooSlow: Bool { state.withLock { $0.tooSlow } }

    private func endWindow(_ task: RepeatedTask, minimum: Int) {
        let cut = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            guard state.bytes >= minimum else {
                state.tooSlow = true
                state.finished = true
                return true
            }
            state.bytes = 0
            return false
        }
        guard cut else { return }
        task.cancel()
        channel?.close(mode: .input, promise: nil)
    }
}

/// A request body whose pace a `BodyRateWatch` watches.
struct RateWatchedBody<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer

    let base: Base
    let watch: BodyRateWatch

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let watch: BodyRateWatch

        mutating func next() async throws -> ByteBuffer? {
            watch.begin()
            do {
                guard let buffer = try await base.next() else {
                    watch.finish()
                    return nil
                }
                watch.count(buffer.readableBytes)
                return buffer
            } catch {
                watch.finish()
                throw error
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), watch: watch)
    }
}
