import Foundation
import Testing
@testable import TilawaCore

@Suite("Idempotency-Key protocol")
struct IdempotencyStateMachineTests {
    @Test("A first request reads its body, claims the key, runs, and its answer is remembered")
    func firstRequest() {
        var machine = IdempotencyStateMachine()
        #expect(machine.headersReceived(.unused) == .readBody)
        #expect(machine.bodyReceived(requestHash: "12:abc") == .claim(requestHash: "12:abc"))
        #expect(machine.claimAnswered(.unused) == .run)
        #expect(machine.answered(status: 201, body: Data("{}".utf8)) == .remember(status: 201, body: Data("{}".utf8)))
        #expect(machine.failed() == .ignore, "finished: nothing more to do")
    }

    @Test("A key in flight is refused before the body is read, and again if it became busy while the body streamed")
    func inFlight() {
        var early = IdempotencyStateMachine()
        #expect(early.headersReceived(.inFlight) == .refuse(.keyInUse))
        #expect(early.bodyReceived(requestHash: "x") == .ignore)
        var late = IdempotencyStateMachine()
        _ = late.headersReceived(.unused)
        _ = late.bodyReceived(requestHash: "x")
        #expect(late.claimAnswered(.inFlight) == .refuse(.keyInUse))
    }

    @Test("A repeat with the same body replays the stored answer; with another body it is refused")
    func answered() {
        let stored = IdempotencyStateMachine.Record.answered(requestHash: "12:abc", status: 422, body: Data("p".utf8))
        var same = IdempotencyStateMachine()
        _ = same.headersReceived(stored)
        _ = same.bodyReceived(requestHash: "12:abc")
        #expect(same.claimAnswered(stored) == .replay(status: 422, body: Data("p".utf8)))
        var other = IdempotencyStateMachine()
        _ = other.headersReceived(stored)
        _ = other.bodyReceived(requestHash: "11:abc")
        #expect(other.claimAnswered(stored) == .refuse(.keyReused))
    }

    @Test("A failure on our side after the claim releases the key; events out of order are ignored")
    func failure() {
        var machine = IdempotencyStateMachine()
        #expect(machine.failed() == .ignore)
        #expect(machine.answered(status: 201, body: Data()) == .ignore)
        _ = machine.headersReceived(.unused)
        #expect(machine.claimAnswered(.unused) == .ignore, "no claim before the body")
        _ = machine.bodyReceived(requestHash: "h")
        _ = machine.claimAnswered(.unused)
        #expect(machine.failed() == .release)
        #expect(machine.answered(status: 201, body: Data()) == .ignore)
    }
}

@Suite("Idempotency-Key before the body: the slot decides what can be known early")
struct IdempotencyHeadersTests {
    @Test("a new key checks the rules; an answer for this slot reads the body without them; another slot's answer or a running request is refused at once")
    func headersWithSlot() {
        var fresh = IdempotencyStateMachine()
        #expect(fresh.headersReceived(.unused, slot: "12") == .checkRulesThenReadBody)
        #expect(fresh.bodyReceived(requestHash: "12:abc") == .claim(requestHash: "12:abc"))

        let stored = IdempotencyStateMachine.Record.answered(requestHash: "12:abc", status: 201, body: Data("{}".utf8))
        var replay = IdempotencyStateMachine()
        #expect(replay.headersReceived(stored, slot: "12") == .readBody)
        _ = replay.bodyReceived(requestHash: "12:abc")
        #expect(replay.claimAnswered(stored) == .replay(status: 201, body: Data("{}".utf8)))

        // "1" is a prefix of "12": the slot is compared up to its colon.
        var otherSlot = IdempotencyStateMachine()
        #expect(otherSlot.headersReceived(stored, slot: "1") == .refuse(.keyReused))
        #expect(otherSlot.bodyReceived(requestHash: "1:abc") == .ignore)

        var running = IdempotencyStateMachine()
        #expect(running.headersReceived(.inFlight, slot: "12") == .refuse(.keyInUse))
    }
}
