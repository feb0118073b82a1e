import Foundation
import Testing
@testable import TilawaDaemon

@Suite("The test-only accelerated clock")
struct AcceleratedClockTests {
    @Test("parsed from TILAWA_TEST_CLOCK=START,RATE; anything else is no clock")
    func parsing() {
        let clock = AcceleratedClock(environment: [AcceleratedClock.variable: "1924560000,100800"])
        #expect(clock?.start == Date(timeIntervalSince1970: 1_924_560_000) && clock?.rate == 100_800)
        for bad in ["", "1924560000", "1924560000,0", "1924560000,1e9", "x,10", "1,2,3", "nan,10"] {
            #expect(AcceleratedClock(environment: [AcceleratedClock.variable: bad]) == nil, "\(bad)")
        }
        #expect(AcceleratedClock(environment: [:]) == nil)
    }

    @Test("starts at START on its first reading and runs RATE times as fast; its tick is a programme minute, at least 20 ms")
    func running() {
        let clock = AcceleratedClock(start: Date(timeIntervalSince1970: 1_000_000), rate: 3_600)
        let first = Date(timeIntervalSince1970: 50)
        #expect(clock.programmeTime(at: first) == Date(timeIntervalSince1970: 1_000_000))
        #expect(clock.programmeTime(at: first.addingTimeInterval(2)) == Date(timeIntervalSince1970: 1_000_000 + 7_200))
        #expect(clock.tickInterval == .milliseconds(20))
        #expect(AcceleratedClock(start: .now, rate: 60).tickInterval == .seconds(1))
    }
}
