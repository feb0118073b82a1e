import Foundation

/// Runs an `OpusFileEncoder` on its own thread, fed through a bounded queue.
///
/// Encoding costs about ten times what decoding and analysis do, so overlapping the two on
/// separate cores makes `tilawa encode` faster than encoding alone; the bound (a few dozen
/// blocks, well under a megabyte) keeps memory flat when the encoder falls behind.
///
/// `@unchecked Sendable` is safe because every mutable member (`queue`, `closed`,
/// `failure`) is read and written only while `condition` is locked, and the encoder is
/// used only by the worker thread between `start()` and the end of `finish()`, which waits
/// for that thread to exit before returning.
final class EncoderThread: @unchecked Sendable {
    private let encoder: OpusFileEncoder
    private let condition = NSCondition()
    private let capacity: Int
    private var queue: [[Float]] = []
    private var closed = false
    private var failure: OpusEncoderError?
    private let done = DispatchSemaphore(value: 0)
    private var started = false

    init(encoder: OpusFileEncoder, capacity: Int = 32) {
        self.encoder = encoder
        self.capacity = capacity
    }

    func start() {
        started = true
        let thread = Thread { [self] in work() }
        thread.name = "tilawa-opus-encoder"
        thread.start()
    }

    /// Queues a copy of `block`, waiting while the queue is full; throws the encoder's error
    /// as soon as it has failed, so the decoder stops early.
    func write(_ block: UnsafeBufferPointer<Float>) throws(OpusEncoderError) {
        let copy = Array(block)
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= capacity && failure == nil { condition.wait() }
        if let failure { throw failure }
        queue.append(copy)
        condition.broadcast()
    }

    /// Ends the stream, waits for the worker, and finishes the file (drain, close) unless
    /// `abandon` is set, in which case the encoder is left for the caller to discard.
    func finish(abandon: Bool = false) throws(OpusEncoderError) {
        condition.lock()
        closed = true
        if abandon { queue.removeAll() }
        condition.broadcast()
        condition.unlock()
        if started { done.wait() }
        started = false
        condition.lock()
        let failure = self.failure
        condition.unlock()
        if let failure { throw failure }
        if !abandon { try encoder.finish() }
    }

    private func work() {
        defer { done.signal() }
        while true {
            condition.lock()
            while queue.isEmpty && !closed { condition.wait() }
            if queue.isEmpty {
                condition.unlock()
                return
            }
            let block = queue.removeFirst()
            condition.broadcast()
            condition.unlock()
            do {
                try block.withUnsafeBufferPointer { buffer throws(OpusEncoderError) in try encoder.write(buffer) }
            } catch {
                condition.lock()
                failure = error
                queue.removeAll()
                condition.broadcast()
                condition.unlock()
                return
            }
        }
    }
}
