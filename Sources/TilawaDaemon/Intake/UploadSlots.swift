import Prometheus
import Synchronization

/// The cap on uploads in flight (`http.max_concurrent_uploads`): each takes a slot before its
/// body is read and gives it back once answered, so memory and decoding work stay bounded
/// however many phones connect at once; past the cap the answer is 503 with `Retry-After`
/// before the body is read. `tilawa_uploads_in_flight` shows the level.
final class UploadSlots: Sendable {
    let limit: Int
    private let inFlight = Mutex(0)
    private let gauge: Gauge

    init(limit: Int, gauge: Gauge) {
        self.limit = limit
        self.gauge = gauge
    }

    /// Takes a slot; false when all are taken.
    func acquire() -> Bool {
        let level = inFlight.withLock { count -> Int? in
            guard count < limit else { return nil }
            count += 1
            return count
        }
        guard let level else { return false }
        gauge.set(Double(level))
        return true
    }

    /// Gives a slot back.
    func release() {
        let level = inFlight.withLock { count -> Int in
            count = max(0, count - 1)
            return count
        }
        gauge.set(Double(level))
    }

    /// Uploads in flight now.
    var level: Int { inFlight.withLock { $0 } }
}
