import Foundation

/// The `Idempotency-Key` protocol of one upload, as a plain state machine that returns what
/// to do next (the swift-nio style): the caller does the I/O, this decides.
///
/// Order of events: the headers arrive (the store's record of the key is looked up: a request
/// still running with it is refused before its body is read); the body arrives (its hash — slot
/// and content — is claimed in one store transaction that answers what the key held); the
/// request runs and its answer is remembered, or it fails on our side and the key is released
/// so that a retry runs anew.
public struct IdempotencyStateMachine: Sendable {
    /// What the store holds for the key.
    public enum Record: Sendable, Equatable {
        /// Nothing (or an expired record): for a claim, the key is now this request's.
        case unused
        /// Another request with this key is running.
        case inFlight
        /// Answered: the request's hash and the answer to replay.
        case answered(requestHash: String, status: Int, body: Data)
    }

    /// Why a request with a key is refused.
    public enum Refusal: Sendable, Equatable {
        /// The first request with this key is still running.
        case keyInUse
        /// The key was used for another slot or another recording.
        case keyReused
    }

    /// What the caller does next.
    public enum Action: Sendable, Equatable {
        /// Read the body.
        case readBody
        /// Apply the rule's cheap prechecks (a locked week, no attempt left), then read the
        /// body: the key is new, so this request cannot be a replay.
        case checkRulesThenReadBody
        /// Claim the key for a request with this hash (one transaction answering the record).
        case claim(requestHash: String)
        /// The key is this request's: run it.
        case run
        /// Answer with the stored answer, unchanged.
        case replay(status: Int, body: Data)
        /// Answer with a conflict.
        case refuse(Refusal)
        /// Store this answer for later replays.
        case remember(status: Int, body: Data)
        /// Delete the claim: a retry runs anew.
        case release
        /// The event does not apply in this state.
        case ignore
    }

    private enum State: Sendable, Equatable {
        case expectingHeaders, expectingBody, claiming(requestHash: String), running, finished
    }

    private var state = State.expectingHeaders

    public init() {}

    /// The headers are in, and the store's record of the key as it stands.
    public mutating func headersReceived(_ record: Record) -> Action {
        guard state == .expectingHeaders else { return .ignore }
        if record == .inFlight {
            state = .finished
            return .refuse(.keyInUse)
        }
        state = .expectingBody
        return .readBody
    }

    /// The headers are in, for `slot`, and the store's record of the key as it stands: a
    /// request still running with the key, or an answer for another slot, is refused before
    /// the body is read; an answer for this slot may be this request's (a replay, which must
    /// get its answer even when the rule would refuse a new recording now), so the body is
    /// read without the rule's prechecks; a new key runs the prechecks first.
    public mutating func headersReceived(_ record: Record, slot: String) -> Action {
        guard state == .expectingHeaders else { return .ignore }
        switch record {
        case .inFlight:
            state = .finished
            return .refuse(.keyInUse)
        case let .answered(requestHash, _, _) where !requestHash.hasPrefix(slot + ":"):
            state = .finished
            return .refuse(.keyReused)
        case .answered:
            state = .expectingBody
            return .readBody
        case .unused:
            state = .expectingBody
            return .checkRulesThenReadBody
        }
    }

    /// The whole body is in; `requestHash` names the slot and the content.
    public mutating func bodyReceived(requestHash: String) -> Action {
        guard state == .expectingBody else { return .ignore }
        state = .claiming(requestHash: requestHash)
        return .claim(requestHash: requestHash)
    }

    /// What the claim found: `.unused` means the key is now this request's.
    public mutating func claimAnswered(_ record: Record) -> Action {
        guard case let .claiming(hash) = state else { return .ignore }
        state = .finished
        switch record {
        case .unused:
            state = .running
            return .run
        case .inFlight:
            return .refuse(.keyInUse)
        case let .answered(stored, status, body):
            return stored == hash ? .replay(status: status, body: body) : .refuse(.keyReused)
        }
    }

    /// The request has its answer.
    public mutating func answered(status: Int, body: Data) -> Action {
        guard state == .running else { return .ignore }
        state = .finished
        return .remember(status: status, body: body)
    }

    /// The request failed on our side, after the claim.
    public mutating func failed() -> Action {
        guard state == .running else { return .ignore }
        state = .finished
        return .release
    }
}
