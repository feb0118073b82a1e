import Foundation
import Testing
@testable import TilawaCore

@Suite("AttemptWindow")
struct AttemptWindowTests {
    static let now = utc("2026-03-10T18:00:00Z")

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let ages: [TimeInterval]  // seconds before `now`; negative = stamped after now
        let used: Int
        let nextAfterNow: TimeInterval?  // nextAttemptAt − now
        var testDescription: String { name }
    }

    @Test("window (now − 7 days, now]", arguments: [
        Case(name: "empty", ages: [], used: 0, nextAfterNow: nil),
        Case(name: "one recent", ages: [day], used: 1, nextAfterNow: nil),
        Case(name: "two in window", ages: [6 * day, day], used: 2, nextAfterNow: day),
        Case(name: "input order does not matter", ages: [day, 6 * day], used: 2, nextAfterNow: day),
        Case(name: "exactly 7 days old no longer counts", ages: [week, day], used: 1, nextAfterNow: nil),
        Case(name: "7 days − 1 s still counts", ages: [week - 1, day], used: 2, nextAfterNow: 1),
        Case(name: "one right now", ages: [0, 3 * day], used: 2, nextAfterNow: 4 * day),
        Case(name: "old ones ignored", ages: [30 * day, 8 * day, week + 1], used: 0, nextAfterNow: nil),
        Case(name: "over the limit: (used − limit + 1)-th oldest", ages: [5 * day, 3 * day, day], used: 3, nextAfterNow: 4 * day),
        Case(name: "stamped after now still counts", ages: [-60, 2 * day], used: 2, nextAfterNow: 5 * day),
    ])
    func standard(_ c: Case) {
        let status = AttemptWindow.standard.status(countedAt: c.ages.map { Self.now.addingTimeInterval(-$0) }, now: Self.now)
        #expect(status.used == c.used)
        #expect(status.limit == 2)
        #expect(status.remaining == max(0, 2 - c.used))
        #expect(status.nextAttemptAt == c.nextAfterNow.map { Self.now.addingTimeInterval($0) })
    }

    @Test("the next attempt opens exactly when the oldest leaves the window")
    func nextAttemptIsExact() throws {
        let times = [Self.now.addingTimeInterval(-6 * day), Self.now.addingTimeInterval(-2 * day)]
        let status = AttemptWindow.standard.status(countedAt: times, now: Self.now)
        let next = try #require(status.nextAttemptAt)
        #expect(next == times[0].addingTimeInterval(week))
        #expect(AttemptWindow.standard.status(countedAt: times, now: next.addingTimeInterval(-0.001)).remaining == 0)
        #expect(AttemptWindow.standard.status(countedAt: times, now: next).remaining == 1)
    }

    @Test("7 days is absolute time, also across the DST start")
    func acrossDST() {
        // 2026-03-03 12:00 EST → 2026-03-10 13:00 EDT is exactly 604 800 s.
        let now = utc("2026-03-10T17:00:00Z")
        let window = AttemptWindow.standard
        #expect(window.status(countedAt: [utc("2026-03-03T17:00:00Z")], now: now).used == 0)
        #expect(window.status(countedAt: [utc("2026-03-03T17:00:01Z")], now: now).used == 1)
    }

    @Test("a larger limit: next opens when used drops below it")
    func largerLimit() throws {
        let window = try AttemptWindow(limit: 3)
        let times = [6.0, 4, 2, 1].map { Self.now.addingTimeInterval(-$0 * day) }
        let status = window.status(countedAt: times, now: Self.now)
        #expect(status.used == 4 && status.remaining == 0)
        // 4 used, limit 3: two must expire; the second oldest (4 days old) leaves in 3 days.
        #expect(status.nextAttemptAt == Self.now.addingTimeInterval(3 * day))
        #expect(window.status(countedAt: times.suffix(2), now: Self.now).remaining == 1)
    }

    @Test("a configured length")
    func configuredLength() throws {
        let window = try AttemptWindow(limit: 1, length: 3600)
        let status = window.status(countedAt: [Self.now.addingTimeInterval(-600)], now: Self.now)
        #expect(status == AttemptStatus(used: 1, limit: 1, remaining: 0, nextAttemptAt: Self.now.addingTimeInterval(3000)))
        #expect(window.status(countedAt: [Self.now.addingTimeInterval(-3600)], now: Self.now).used == 0)
    }

    @Test("from history: failed submissions and assessments do not count")
    func fromHistory() {
        let history = [
            submission("a", .week(3), Self.now.addingTimeInterval(-day), .feedbackReady),
            submission("b", .week(4), Self.now.addingTimeInterval(-2 * day), .failed),
            submission("c", .assessment, Self.now.addingTimeInterval(-3 * day)),
            submission("d", .eoc, Self.now.addingTimeInterval(-4 * day), .superseded),
        ]
        let status = AttemptWindow.standard.status(of: history, now: Self.now)
        #expect(status.used == 2)
        #expect(status.nextAttemptAt == Self.now.addingTimeInterval(3 * day))
        #expect(AttemptWindow.standard.counts(.week) && AttemptWindow.standard.counts(.eoc))
        #expect(!AttemptWindow.standard.counts(.assessment))
    }

    @Test("refuses impossible settings")
    func badSettings() {
        for limit in [0, -1] {
            #expect(throws: RuleConfigurationError.invalidAttemptLimit(limit)) { try AttemptWindow(limit: limit) }
        }
        for length in [0, -1, Double.infinity] {
            #expect(throws: RuleConfigurationError.invalidAttemptWindowLength(length)) { try AttemptWindow(length: length) }
        }
        #expect(throws: RuleConfigurationError.self) { try AttemptWindow(length: .nan) }
    }

    @Test("status JSON has snake_case members and an explicit null")
    func statusJSON() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .iso8601
        let open = AttemptStatus(used: 1, limit: 2, remaining: 1, nextAttemptAt: nil)
        #expect(String(decoding: try encoder.encode(open), as: UTF8.self)
            == #"{"granted":0,"limit":2,"next_attempt_at":null,"remaining":1,"used":1}"#)
        let full = AttemptStatus(used: 2, limit: 2, remaining: 0, nextAttemptAt: utc("2026-03-11T18:00:00Z"))
        let data = try encoder.encode(full)
        #expect(String(decoding: data, as: UTF8.self)
            == #"{"granted":0,"limit":2,"next_attempt_at":"2026-03-11T18:00:00Z","remaining":0,"used":2}"#)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(try decoder.decode(AttemptStatus.self, from: data) == full)
    }

    @Test("window configuration JSON round trip")
    func windowJSON() throws {
        let window = try AttemptWindow(limit: 3, length: 86_400, countedKinds: [.week])
        let data = try JSONEncoder().encode(window)
        #expect(try JSONDecoder().decode(AttemptWindow.self, from: data) == window)
        #expect(try JSONDecoder().decode(AttemptWindow.self, from: Data("{}".utf8)) == .standard)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(AttemptWindow.self, from: Data(#"{"limit":0}"#.utf8)) }
    }
}
