import Prometheus
import Synchronization

/// The cap on uploads in flight (`http.max_concurrent_uploads`), shared fairly: each upload
/// takes a slot before its body is read and gives it back once answered, so memory and
/// decoding work stay bounded however many phones connect at once.
///
/// Fair shares, so that one token cannot take the pool (one student trickling 32 bodies in
/// used to refuse every other upload in the programme for as long as the bodies lasted):
/// - one verified principal holds at most `perPrincipal` slots (`http.max_uploads_per_principal`);
///   the next is 429 `too_many_uploads_for_you`. The principal comes from a verified token
///   only — an unverified `sub` would let anyone lock a victim out;
/// - the last `coachReserved` slots (`http.coach_upload_slots`) are for coaches: students
///   filling the pool never stop a reply.
/// Past the pool the answer is 503 with `Retry-After`, before the body is read.
/// `tilawa_uploads_in_flight` shows the level.
final class UploadSlots: Sendable {
    /// Why a slot was not given.
    enum Refusal: Error, Equatable {
        /// Every slot this caller's role may use is taken.
        case poolFull
        /// This caller already holds `perPrincipal` slots.
        case principalFull
    }

    let limit: Int
    let perPrincipal: Int
    let coachReserved: Int
    private let state = Mutex(State())
    private let gauge: Gauge

    private struct State {
        var inFlight = 0
        var held: [Principal: Int] = [:]
    }

    /// - Parameters:
    ///   - perPrincipal: slots one principal may hold (default: the whole pool).
    ///   - coachReserved: slots only coaches may take (default none).
    init(limit: Int, perPrincipal: Int? = nil, coachReserved: Int = 0, gauge: Gauge) {
        self.limit = limit
        self.perPrincipal = perPrincipal ?? limit
        self.coachReserved = min(max(0, coachReserved), limit - 1)
        self.gauge = gauge
    }

    /// Takes a slot for `principal`, or says why not.
    func acquire(for principal: Principal) -> Refusal? {
        let outcome = state.withLock { state -> Result<Int, Refusal> in
            let usable = principal.role == .coach ? limit : limit - coachReserved
            guard state.held[principal, default: 0] < perPrincipal else { return .failure(.principalFull) }
            guard state.inFlight < usable else { return .failure(.poolFull) }
            state.inFlight += 1
            state.held[principal, default: 0] += 1
            return .success(state.inFlight)
        }
        switch outcome {
        case let .success(level):
            gauge.set(Double(level))
            return nil
        case let .failure(refusal):
            return refusal
        }
    }

    /// Gives `principal`'s slot back.
    func release(for principal: Principal) {
        let level = state.withLock { state -> Int in
            state.inFlight = max(0, state.inFlight - 1)
            let held = state.held[principal, default: 0] - 1
            state.held[principal] = held > 0 ? held : nil
            return state.inFlight
        }
        gauge.set(Double(level))
    }

    /// Uploads in flight now.
    var level: Int { state.withLock { $0.inFlight } }
}
