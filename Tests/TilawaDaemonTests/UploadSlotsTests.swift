import Testing
@testable import TilawaDaemon

@Suite("Upload slots: one pool, fair shares")
struct UploadSlotsTests {
    func slots(limit: Int, perPrincipal: Int, coachReserved: Int) -> UploadSlots {
        UploadSlots(limit: limit, perPrincipal: perPrincipal, coachReserved: coachReserved, gauge: TilawaMetrics().uploadsInFlight)
    }

    @Test("one principal holds at most its share; others still get slots; a released slot is the principal's again")
    func perPrincipal() throws {
        let pool = slots(limit: 6, perPrincipal: 2, coachReserved: 0)
        let greedy = try #require(Principal(subject: "S1006", role: .student))
        let other = try #require(Principal(subject: "S1001", role: .student))
        #expect(pool.acquire(for: greedy) == nil)
        #expect(pool.acquire(for: greedy) == nil)
        #expect(pool.acquire(for: greedy) == .principalFull)
        #expect(pool.acquire(for: other) == nil)
        #expect(pool.level == 3)
        pool.release(for: greedy)
        #expect(pool.acquire(for: greedy) == nil)
        #expect(pool.level == 3)
    }

    @Test("the last slots are the coaches': students stop short of them, a coach takes them; the same subject as student and coach are two principals")
    func coachReserve() throws {
        let pool = slots(limit: 3, perPrincipal: 3, coachReserved: 1)
        let students = try (1...3).map { try #require(Principal(subject: "S100\($0)", role: .student)) }
        #expect(pool.acquire(for: students[0]) == nil)
        #expect(pool.acquire(for: students[1]) == nil)
        #expect(pool.acquire(for: students[2]) == .poolFull)
        let coach = try #require(Principal(subject: "C01", role: .coach))
        #expect(pool.acquire(for: coach) == nil)
        #expect(pool.acquire(for: coach) == .poolFull)
        // A coach id that is also a student id holds a separate share.
        let sameName = try #require(Principal(subject: "C01", role: .student))
        #expect(pool.acquire(for: sameName) == .poolFull)
        pool.release(for: students[0])
        pool.release(for: students[1])
        #expect(pool.acquire(for: sameName) == nil)
    }

    @Test("the reserve never takes the whole pool: with one slot students keep it")
    func reserveBounded() throws {
        let pool = slots(limit: 1, perPrincipal: 1, coachReserved: 4)
        #expect(pool.coachReserved == 0)
        #expect(pool.acquire(for: try #require(Principal(subject: "S1001", role: .student))) == nil)
    }
}
