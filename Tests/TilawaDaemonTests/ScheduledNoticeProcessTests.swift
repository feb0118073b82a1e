import AsyncHTTPClient
import Foundation
import GRDB
import Synchronization
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

/// The scheduled notifications of a whole semester from a real `tilawa serve` on an
/// accelerated clock (`TILAWA_TEST_CLOCK`: a programme week in twelve seconds), SIGKILLed at
/// random moments and once kept down over a reminder's moment.
@Suite("Scheduled notifications from a real daemon across a semester, SIGKILLs and a stop", .heavy)
struct ScheduledNoticeProcessTests {
    /// Saturday 4 January 2031: week 1 unlocks (New York; DST starts in week 10).
    static let calendar = try! SemesterCalendar(start: LocalDate(year: 2031, month: 1, day: 4), timeZoneIdentifier: "America/New_York")
    /// A programme week in twelve real seconds: a tick (20 ms) is 17 programme minutes. The
    /// shortest time a notice stays worth sending is Dubai's Friday 18:00 reminder before New
    /// York's Friday 23:59 deadline: 15 programme hours, 1.07 s of real time — the daemon may be
    /// starved that long on a loaded box before one goes missing. (At six seconds a week, half
    /// that: the PostgreSQL stage lost a Friday reminder in Jakarta and Dubai twice in five runs.)
    static let rate = 50_400.0

    /// The daemon's programme time, from `/readyz` (`started_at` + `uptime_seconds`).
    static func programmeNow(port: Int) async -> Date? {
        let request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/readyz")
        guard let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(2)), response.status == .ok,
              let body = try? await response.body.collect(upTo: 4_096),
              let object = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any],
              let started = (object["started_at"] as? String).flatMap({ try? Date($0, strategy: .iso8601) }),
              let uptime = object["uptime_seconds"] as? Int else { return nil }
        return started.addingTimeInterval(Double(uptime))
    }

    /// `tilawa_database_collisions_total` of the daemon on `port` (PostgreSQL's refusals it ran
    /// again: held-up ticks, told in a failure's message).
    static func collisions(port: Int) async -> Int {
        let request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/metrics")
        guard let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(5)),
              let body = try? await response.body.collect(upTo: 1 << 20) else { return 0 }
        let line = String(buffer: body).split(separator: "\n").first { $0.hasPrefix("tilawa_database_collisions_total ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) } ?? 0
    }

    @Test("every week_unlocked and deadline_reminder exactly once, in order per recipient, with the week's number, title and local deadline; none to a student who submitted; the one due while the daemon was down goes out late")
    func wholeSemester() async throws {
        let state = try await CommandLineStateFixture(importSamples: false)
        defer { state.remove() }
        let sample = try String(contentsOfFile: CommandLineStateFixture.sample("program.yaml"), encoding: .utf8)
        let moved = sample.replacingOccurrences(of: "start: 2026-09-05", with: "start: 2031-01-04")
            .replacingOccurrences(of: "start: 2027-01-09", with: "start: 2031-05-24")
        try #require(moved.contains("2031-01-04") && moved.contains("2031-05-24"), "the sample programme's semesters changed")
        try moved.write(toFile: state.scratch.path("program.yaml"), atomically: true, encoding: .utf8)
        // One who submits every week (S1001, New York), one who stops after week 2 (S1002, in
        // Jakarta), two who never submit (S1003 in New York, S1004 in Dubai).
        try """
            student_id,name,level,coach_id,semester_id,time_zone
            S1001,Aisha Rahman,L1,C01,fall-2026,
            S1002,Omar Farouk,L1,C02,fall-2026,Asia/Jakarta
            S1003,"Al-Amin, Zaynab",L2,C01,fall-2026,America/New_York
            S1004,Maryam Idris,L1,C02,fall-2026,Asia/Dubai

            """.write(toFile: state.scratch.path("students.csv"), atomically: true, encoding: .utf8)
        let imported = try await state.run(["roster", "import", state.scratch.path("program.yaml"), state.scratch.path("students.csv")])
        try #require(imported.status == 0, "\(imported.stderr)")
        // Their recordings, each on its week's Saturday at noon (the CLI's clock pinned there).
        let utc = DateFormatter()
        utc.locale = Locale(identifier: "en_US_POSIX")
        utc.timeZone = TimeZone(identifier: "UTC")
        utc.dateFormat = "yyyy-MM-dd HH:mm:ss"
        for (student, weeks) in [("S1001", Array(1...15)), ("S1002", [1, 2])] {
            for week in weeks {
                let at = utc.string(from: Self.calendar.unlock(week: week).addingTimeInterval(12 * 3_600))
                let ingest = try await state.run(["ingest", "--student", student, "--week", "\(week)",
                                                  CommandLineStateFixture.fixture("speech.opus")], at: at)
                try #require(ingest.status == 0, "\(student) week \(week): \(ingest.stderr)")
            }
        }
        let secretPath = state.scratch.path("webhook.secret")
        try Data(webhookSecret).write(to: URL(fileURLWithPath: secretPath))

        // Three SIGKILLs at random moments (the restart resumes where the clock was), and one
        // kill on week 5's Wednesday morning with the restart on Thursday at 10:00: the
        // daemon is down over the Wednesday 18:00 reminder.
        let seed = UInt64(Date().timeIntervalSince1970)
        var random = SeededGenerator(seed: seed)
        let span = Self.calendar.unlock(week: 1).timeIntervalSince1970...Self.calendar.deadline(week: 15).timeIntervalSince1970
        let week5Wednesday = Self.calendar.deadline(week: 5).addingTimeInterval(-(2 * 86_400 + 18 * 3_600) + 1)  // 06:00
        let week5Thursday = week5Wednesday.addingTimeInterval(28 * 3_600)  // 10:00
        // The Thursday restart runs its clock 20 times slower until a planned stop at 13:00: at the
        // usual rate (14 programme hours a real second) a restart slowed by a loaded box would
        // begin on Friday, and the late reminder could no longer say "due tomorrow" — a verdict
        // the machine's load would decide. Then the clock resumes at the usual rate.
        let week5Afternoon = week5Thursday.addingTimeInterval(3 * 3_600)
        var stops: [(at: Date, resume: Date?, rate: Double?)] = (0..<3)
            .map { _ in (Date(timeIntervalSince1970: Double.random(in: span, using: &random)), nil, nil) }
            .filter { !(week5Wednesday.addingTimeInterval(-86_400)...week5Afternoon).contains($0.at) }
        // The day before, a planned restart slows the clock 20 times too: at the usual rate the
        // Wednesday 06:00 kill has 0.9 real seconds before the 18:00 reminder, and a loaded box's
        // slow poll let the daemon send it before it was killed (run L, seed 1795930981).
        stops.append((week5Wednesday.addingTimeInterval(-86_400), nil, Self.rate / 20))
        stops.append((week5Wednesday, week5Thursday, Self.rate / 20))
        stops.append((week5Afternoon, nil, nil))
        stops.sort { $0.at < $1.at }
        // A random stop that fell near week 5's Wednesday was dropped: five or six kills.
        let kills = stops.count
        let end = Self.calendar.deadline(week: 15).addingTimeInterval(86_400)

        let receiver = WebhookReceiver()
        let collisions = Mutex(0)
        try await receiver.serve { url in
            var resume = Self.calendar.unlock(week: 1).addingTimeInterval(-3_600)
            var rate = Self.rate
            var daemons = 0
            while true {
                let environment = [
                    "TILAWA_WEBHOOK_URL": url.absoluteString, "TILAWA_WEBHOOK_SECRET_FILE": secretPath,
                    AcceleratedClock.variable: "\(resume.timeIntervalSince1970),\(rate)",
                ]
                let daemon = try ServeProcess(state: state, port: try unusedPort(), environment: environment)
                daemons += 1
                guard await daemon.waitUntilReady() else { Issue.record("daemon did not start (seed \(seed)): \(daemon.log)"); return }
                var killedAt: Date?
                while killedAt == nil, let now = await Self.programmeNow(port: daemon.port), now < end {
                    if let stop = stops.first, now >= stop.at {
                        let counted = await Self.collisions(port: daemon.port)
                        collisions.withLock { $0 += counted }
                        daemon.process.signal(SIGKILL)
                        daemon.process.waitUntilExit()
                        stops.removeFirst()
                        killedAt = stop.resume ?? now
                        rate = stop.rate ?? Self.rate
                    } else {
                        try await Task.sleep(for: .milliseconds(10))
                    }
                }
                if let killedAt {
                    resume = killedAt
                    continue
                }
                // The semester is over: let the outbox drain, then stop.
                let drained = await eventually {
                    try state.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event WHERE deliveredAt IS NULL") } == 0
                }
                #expect(drained, "seed \(seed)")
                let counted = await Self.collisions(port: daemon.port)
                collisions.withLock { $0 += counted }
                #expect(await daemon.terminate() == 0)
                break
            }
            #expect(daemons == kills + 1, "seed \(seed): \(kills) kills, \(kills + 1) daemons")
        }

        let events = try state.read { db in try EventRecord.fetchAll(db, orderBy: "seq") }
        let taken = receiver.calls.filter(\.wasTaken)
        #expect(callsAreInOrderPerRecipient(taken, events: events), "seed \(seed)")
        // What the receiver got, once per event id.
        var seen = Set<String>()
        let delivered = try taken.filter { seen.insert($0.eventId ?? "").inserted }
            .map { try JSONDecoder.api.decode(EventPayload.self, from: $0.body) }
        #expect(Set(events.map(\.id)) == seen, "every event delivered (seed \(seed))")

        let curriculum = try state.read { db in
            try Row.fetchAll(db, sql: "SELECT levelId, week, title, passage FROM curriculumWeek").reduce(into: [String: (String, String?)]()) {
                $0["\($1["levelId"] as String)/\($1["week"] as Int)"] = ($1["title"], $1["passage"])
            }
        }
        let level = ["S1001": "L1", "S1002": "L1", "S1003": "L2", "S1004": "L1"]
        let zone = ["S1001": "America/New_York", "S1002": "Asia/Jakarta", "S1003": "America/New_York", "S1004": "Asia/Dubai"]
            .mapValues { TimeZone(identifier: $0)! }
        for student in ["S1001", "S1002", "S1003", "S1004"] {
            var local = Calendar(identifier: .gregorian)
            local.timeZone = zone[student]!
            let mine = delivered.filter { $0.studentId == student && $0.recipient == "student" }
            let unlocked = mine.filter { $0.type == "week_unlocked" }
            #expect(unlocked.compactMap { $0.week?.number } == Array(1...15), "\(student): every week once, in order (seed \(seed))")
            for notice in unlocked {
                let week = notice.week?.number ?? 0
                let (title, passage) = curriculum["\(level[student]!)/\(week)"] ?? ("?", nil)
                #expect(notice.message == StudentMessages.weekUnlocked(week: week, title: title, passage: passage,
                                                                       due: Self.calendar.deadline(week: week), zone: zone[student]!).text)
                #expect(notice.week?.title == title)
            }
            let reminders = mine.filter { $0.type == "deadline_reminder" }
            let expected: [Int] = switch student {
            case "S1001": []
            case "S1002": (3...15).flatMap { [$0, $0] }
            default: (1...15).flatMap { [$0, $0] }
            }
            // S1004's are in Dubai at 18:00 on Thursday and Friday (the deadline is Saturday
            // morning there); S1002's in Jakarta likewise; S1003's on Wednesday and Thursday in
            // New York, across its change to summer time in week 10.
            #expect(reminders.compactMap { $0.week?.number } == expected,
                    "\(student) (seed \(seed), \(collisions.withLock { $0 }) transactions run again after a collision)")
            for (index, reminder) in reminders.enumerated() {
                let week = reminder.week?.number ?? 0
                let title = curriculum["\(level[student]!)/\(week)"]?.0 ?? "?"
                #expect([2, 1, 0].map {
                    StudentMessages.deadlineReminder(week: week, title: title, due: Self.calendar.deadline(week: week), zone: zone[student]!, daysLeft: $0).text
                }.contains(reminder.message))
                #expect(reminder.occurredAt <= Self.calendar.deadline(week: week), "never a stale reminder")
                // Never before the student's own 18:00 on the day it belongs to — 2 days before the
                // deadline's day *in their zone* for a week's first reminder, 1 day for its second.
                // (Late is allowed: a loaded machine stalls the accelerated clock's ticks by hours
                // of programme time, and a restart's first tick comes late; how late is a timing,
                // not this test's business.) New York's hours would be early in Dubai and Jakarta:
                // 18:00 in New York is 03:00 the next morning in Dubai, 06:00 in Jakarta.
                let daysBefore = index.isMultiple(of: 2) ? 2 : 1
                let deadlineDay = local.startOfDay(for: Self.calendar.deadline(week: week))
                let day = try #require(local.date(byAdding: .day, value: -daysBefore, to: deadlineDay))
                let due = try #require(local.date(bySettingHour: 18, minute: 0, second: 0, of: day))
                #expect(reminder.occurredAt >= due,
                        "\(student) week \(week): \(HumanDate.format(reminder.occurredAt, in: zone[student]!)) is before \(HumanDate.format(due, in: zone[student]!)) (seed \(seed))")
            }
        }
        // Week 5's Wednesday reminder, due while the daemon was down, went out once when it came
        // back on Thursday, saying what was left.
        let week5 = delivered.filter { $0.studentId == "S1003" && $0.type == "deadline_reminder" && $0.week?.number == 5 }
        #expect(week5.first.map { $0.occurredAt >= week5Thursday && $0.message.contains("is due tomorrow,") } == true, "seed \(seed)")
    }
}
