import Foundation

/// Runs an `OpusFileEncoder` on its own thread, fed through a bounded queue of reused chunks.
///
/// Encoding costs about ten times what decoding and analysis do, so overlapping the two on
/// separate cores makes `tilawa encode` faster than encoding alone. The hand-off is what the
/// overlap costs, so it is kept small: the decoder's blocks (often 1,024 samples) are
/// gathered into chunks of `chunkSamples` (100 ms) before they are queued, chunks are
/// recycled (no allocation after the first few), and a feeder that finds the queue full
/// sleeps until the worker has emptied half of it, so the threads meet once every few
/// chunks. At most `capacity` chunks are queued (0.8 s of audio, 150 KiB), so memory stays
/// flat when the encoder falls behind.
///
/// `@unchecked Sendable` is safe because every mutable member shared by the two threads
/// (`queue`, `spare`, `closed`, `feederWaiting`, `failure`) is read and written only while
/// `condition` is locked; `filling` is touched only by the feeding thread (`write`,
/// `finish`), and the encoder only by the worker thread between `start()` and the end of
/// `finish()`, which waits for that thread to exit before it drains the encoder itself.
final class EncoderThread: @unchecked Sendable {
    private let encoder: OpusFileEncoder
    private let condition = NSCondition()
    private let capacity: Int
    private let chunkSamples: Int
    private var queue: [[Float]] = []
    private var spare: [[Float]] = []
    private var filling: [Float] = []
    private var closed = false
    private var feederWaiting = false
    private var failure: OpusEncoderError?
    private let done = DispatchSemaphore(value: 0)
    private var started = false

    init(encoder: OpusFileEncoder, capacity: Int = 8, chunkSamples: Int = 4_800) {
        self.encoder = encoder
        self.capacity = max(1, capacity)
        self.chunkSamples = max(1, chunkSamples)
        filling.reserveCapacity(self.chunkSamples)
    }

    func start() {
        started = true
        let thread = Thread { [self] in work() }
        thread.name = "tilawa-opus-encoder"
        thread.start()
    }

    /// Adds `block` to the stream; throws the encoder's error as soon as it has failed, so
    /// the decoder stops early.
    func write(_ block: UnsafeBufferPointer<Float>) throws(OpusEncoderError) {
        var start = 0
        while start < block.count {
            let take = min(chunkSamples - filling.count, block.count - start)
            filling.append(contentsOf: UnsafeBufferPointer(rebasing: block[start..<(start + take)]))
            start += take
            if filling.count == chunkSamples { try hand(filling: true) }
        }
    }

    /// Ends the stream, waits for the worker, and finishes the file (drain, close) unless
    /// `abandon` is set, in which case the encoder is left for the caller to discard.
    func finish(abandon: Bool = false) throws(OpusEncoderError) {
        if !abandon && !filling.isEmpty && started { try hand(filling: false) }
        filling.removeAll()
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

    /// Queues the chunk being filled, waiting while the queue is full, and takes a spare one
    /// (or a new one while fewer than the bound exist) to fill next.
    private func hand(filling more: Bool) throws(OpusEncoderError) {
        condition.lock()
        defer { condition.unlock() }
        if queue.count >= capacity {
            // Full: wait until the worker has taken half, so the two threads meet once every
            // few chunks instead of at every one.
            feederWaiting = true
            while queue.count > capacity / 2 && failure == nil { condition.wait() }
            feederWaiting = false
        }
        if let failure { throw failure }
        let wasEmpty = queue.isEmpty
        queue.append(filling)
        if wasEmpty { condition.broadcast() }
        filling = more ? (spare.popLast() ?? []) : []
        filling.removeAll(keepingCapacity: true)
        if more && filling.capacity < chunkSamples { filling.reserveCapacity(chunkSamples) }
    }

    private func work() {
        defer { done.signal() }
        var chunk: [Float] = []
        while true {
            condition.lock()
            if chunk.capacity > 0 {
                // The chunk just encoded goes back to the feeder, unless enough are around.
                if spare.count < capacity { spare.append(chunk) }
                chunk = []
            }
            while queue.isEmpty && !closed { condition.wait() }
            if queue.isEmpty {
                condition.unlock()
                return
            }
            chunk = queue.removeFirst()
            if feederWaiting && queue.count <= capacity / 2 { condition.broadcast() }
            condition.unlock()
            do {
                try chunk.withUnsafeBufferPointer { buffer throws(OpusEncoderError) in try encoder.write(buffer) }
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
