import Foundation
import GRDB
import Testing
import TilawaStore
import TilawaTestSupport

/// Pushes where features meet (issue 45): a pause, a cover, a reply moved, an erasure, a
/// restore and a registration sent twice, each through a real daemon and the APNs stand-in.
/// Every verdict is read from the stand-in's log, device token by device token, once the
/// daemon has settled (every event fanned out, every due delivery answered and recorded):
/// what did not come had its chance to, and no verdict depends on how long anything took.
/// A daemon "down" over a span is a restart with a later programme clock.
@Suite("Pushes where features meet: a pause, a cover, a moved reply, an erasure, a restore, a registration sent twice", .heavy)
struct PushSeamTests {
    /// Whether `request` is a `feedback_ready` push about the reply `feedback`.
    static func replyReady(_ request: [String: Any], _ feedback: String) -> Bool {
        request.apnsType == "feedback_ready" && request.apnsLink?.hasSuffix("/feedback/\(feedback)") == true
    }

    /// Whether `request` is a push of `type` about week 13 (its collapse id, `<type>-w13`).
    static func aboutWeek13(_ request: [String: Any], _ type: String) -> Bool {
        request.apnsType == type && request.apnsHeader("apns-collapse-id") == "\(type)-w13"
    }

    static func text(_ answer: (Int, Data)) -> String { "\(answer.0) \(String(decoding: answer.1, as: UTF8.self))" }

    @Test("""
        A paused student keeps their phone and is sent what a pause leaves them — the pause itself and announcements — \
        but neither the unlock nor the reminder of a week that opens meanwhile, which an active student gets
        """)
    func pausedStudent() async throws {
        let bed = try await APNsTestBed.start()
        defer { bed.stop() }
        let active = APNsTestBed.token(1), paused = APNsTestBed.token(5)
        var daemon = try bed.serve()
        defer { daemon.process.signal(SIGKILL) }
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        #expect(try await bed.register(.students, "S1001", token: active, on: daemon) == 201)
        #expect(try await bed.register(.students, "S1005", token: paused, on: daemon) == 201)
        let pause = try await sendJSON("PUT", daemon.port, "/v1/students/S1005/enrolment", token: try await bed.issue("--ops", "ops"),
                                       json: #"{"state": "paused", "reason": "Travelling for a month"}"#)
        #expect(pause.0 == 200, "\(Self.text(pause))")
        // The pause itself is told: a notice no category silences.
        #expect(await bed.server.settled { $0.contains { $0.apnsToken == paused && $0.apnsType == "enrolment_changed" && $0.apnsStatus == 200 } },
                "\(daemon.log)")
        _ = await daemon.terminate()

        // Wednesday 2 December, 18:00:30 in New York: week 13 unlocked on Saturday while the daemon
        // was down (its unlock goes late, the week still open) and its first reminder is due now.
        let wednesday = APNsTestBed.clock(at: "2026-12-02T23:00:30Z")
        daemon = try bed.serve(clock: wednesday)
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        #expect(try await bed.announce("Ramadan", on: daemon, clock: wednesday) == 202)
        #expect(await bed.server.settled { requests in
            let toActive = requests.filter { $0.apnsToken == active && $0.apnsStatus == 200 }
            return toActive.contains { Self.aboutWeek13($0, "week_unlocked") } && toActive.contains { Self.aboutWeek13($0, "deadline_reminder") }
                && toActive.contains { $0.announcementTitle == "Ramadan" }
                && requests.contains { $0.apnsToken == paused && $0.apnsStatus == 200 && $0.announcementTitle == "Ramadan" }
        }, "\(bed.server.requests.suffix(8))\n\(daemon.log)")
        #expect(await bed.settle(), "every delivery answered and recorded")

        let toPaused = bed.requests(to: paused), toActive = bed.requests(to: active)
        #expect(!toPaused.contains { Self.aboutWeek13($0, "week_unlocked") || Self.aboutWeek13($0, "deadline_reminder") },
                "no unlock and no reminder while paused: \(toPaused.compactMap(\.apnsType))")
        #expect(toPaused.filter { $0.apnsType == "enrolment_changed" }.count == 1, "the pause, once")
        #expect(toPaused.filter { $0.announcementTitle == "Ramadan" }.count == 1, "an announcement reaches a paused student, once")
        #expect(toActive.filter { Self.aboutWeek13($0, "week_unlocked") }.count == 1 && toActive.filter { Self.aboutWeek13($0, "deadline_reminder") }.count == 1,
                "the active student's unlock and reminder, once each: \(toActive.compactMap(\.apnsType))")
        // The outbox decided it: no calendar notice recorded for the paused enrolment; the phone stays registered.
        let notices = try bed.state.read { db in
            try ["S1001", "S1005"].map { student in
                try Int.fetchOne(db, sql: """
                    SELECT COUNT(*) FROM scheduledNotice JOIN enrolment ON enrolment.id = scheduledNotice.enrolmentId
                    WHERE enrolment.studentId = ? AND scheduledNotice.week = 13
                    """, arguments: [student]) ?? -1
            }
        }
        #expect(notices == [2, 0], "week 13's unlock and first reminder for S1001, nothing for S1005: \(notices)")
        #expect(try bed.state.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM device WHERE ownerKind = 'student' AND ownerId = 'S1005'") } == 1)
        _ = await daemon.terminate()
    }

    @Test("A recording of a covered coach's student: its \"ready for review\" goes to the covering coach's phone, never the absent coach's")
    func coveredCoach() async throws {
        let bed = try await APNsTestBed.start()
        defer { bed.stop() }
        let away = APNsTestBed.token(0xC01), covering = APNsTestBed.token(0xC02)
        let daemon = try bed.serve()
        defer { daemon.process.signal(SIGKILL) }
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        #expect(try await bed.register(.coaches, "C01", token: away, on: daemon) == 201)
        #expect(try await bed.register(.coaches, "C02", token: covering, on: daemon) == 201)
        let cover = try await sendJSON("POST", daemon.port, "/v1/coaches/C01/cover", token: try await bed.issue("--ops", "ops"),
                                       json: #"{"covering_coach_id": "C02", "until": "2026-11-29T00:00:00Z", "reason": "Away for a family wedding"}"#)
        #expect(cover.0 == 201, "\(Self.text(cover))")

        // S1001 is C01's student; the recording is encoded, and ready for review, while C02 covers.
        #expect(try await APNsTestBed.uploadAudio("/v1/students/S1001/weeks/12/submissions", bearer: try await bed.issue("--student", "S1001"),
                                                  on: daemon) == 201)
        let submission = try #require(try bed.state.read { db in
            try String.fetchOne(db, sql: "SELECT id FROM submission WHERE studentId = 'S1001' AND week = 12")
        })
        let ready: @Sendable ([String: Any]) -> Bool = { $0.apnsType == "submission_ready_for_review" && $0.apnsLink?.hasSuffix(submission) == true }
        #expect(await bed.server.settled { $0.contains { $0.apnsToken == covering && $0.apnsStatus == 200 && ready($0) } }, "\(daemon.log)")
        #expect(await bed.settle(), "every delivery answered and recorded")

        #expect(bed.requests(to: covering).filter(ready).count == 1, "the covering coach, once")
        #expect(bed.requests(to: away).filter(ready).isEmpty, "nothing to the absent coach: \(bed.requests(to: away).compactMap(\.apnsType))")
        #expect(bed.requests(to: covering).filter { $0.apnsType == "cover_started" }.count == 1, "the covering coach is told of the cover")
        #expect(bed.requests(to: away).filter { $0.apnsType == "cover_started" }.isEmpty)
        let recipients = try bed.state.read { db in
            try String.fetchAll(db, sql: "SELECT recipientId FROM event WHERE type = 'submission_ready_for_review' AND studentId = 'S1001'")
        }
        #expect(recipients == ["C02"], "the outbox wrote it for the covering coach: \(recipients)")
    }

    @Test("""
        A reply moved to another student: moved after its push, the student it left gets no second one, only feedback_moved, \
        and the student it joins gets feedback_ready once; moved while its push waited for the student's quiet hours, the \
        waiting push is dropped when they end, never sent to the student it left
        """)
    func movedReply() async throws {
        let bed = try await APNsTestBed.start()
        defer { bed.stop() }
        // S1001 → S1003 (coach C01): moved after the push. S1002 → S1008 (coach C02): moved while it waits.
        let phones = ["S1001": APNsTestBed.token(1), "S1003": APNsTestBed.token(3), "S1002": APNsTestBed.token(2), "S1008": APNsTestBed.token(8)]
        var daemon = try bed.serve()
        defer { daemon.process.signal(SIGKILL) }
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        for (student, token) in phones.sorted(by: { $0.key < $1.key }) {
            #expect(try await bed.register(.students, student, token: token, on: daemon) == 201, "\(student)")
        }
        // S1002 sleeps from 09:00 to 12:00 (New York; it is 10:00): their pushes that may wait, wait for noon.
        let quiet = try await sendJSON("PUT", daemon.port, "/v1/students/S1002/preferences", token: try await bed.issue("--student", "S1002"),
                                       json: #"{"quiet_hours": "09:00-12:00"}"#)
        #expect(quiet.0 == 200, "\(Self.text(quiet))")
        var submissions: [String: String] = [:]
        for student in phones.keys.sorted() {
            #expect(try await APNsTestBed.uploadAudio("/v1/students/\(student)/weeks/12/submissions", bearer: try await bed.issue("--student", student),
                                                      on: daemon) == 201, "\(student)")
            submissions[student] = try #require(try bed.state.read { db in
                try String.fetchOne(db, sql: "SELECT id FROM submission WHERE studentId = ? AND week = 12", arguments: [student])
            })
        }
        for (student, id) in submissions {
            let awaiting = await eventually {
                try bed.state.read { db in try String.fetchOne(db, sql: "SELECT state FROM submission WHERE id = ?", arguments: [id]) } == "awaiting_feedback"
            }
            #expect(awaiting, "\(student)'s recording encoded")
        }
        // Each coach answers the wrong student: C01 answers S1001's recording for S1003, C02 S1002's for S1008.
        for (coach, student) in [("C01", "S1001"), ("C02", "S1002")] {
            let submission = try #require(submissions[student])
            #expect(try await APNsTestBed.uploadAudio("/v1/submissions/\(submission)/feedback", bearer: try await bed.issue("--coach", coach),
                                                      on: daemon) == 201, "\(coach)")
        }
        func reply(to student: String) throws -> String {
            try #require(try bed.state.read { db in
                try String.fetchOne(db, sql: "SELECT id FROM feedback WHERE submissionId = ?", arguments: [submissions[student]])
            })
        }
        let early = try reply(to: "S1001"), held = try reply(to: "S1002")
        let ops = try await bed.issue("--ops", "ops")
        let s1001 = phones["S1001"]!, s1003 = phones["S1003"]!, s1002 = phones["S1002"]!, s1008 = phones["S1008"]!

        // Moved after its push: S1001 had feedback_ready.
        #expect(await bed.server.settled { $0.contains { $0.apnsToken == s1001 && $0.apnsStatus == 200 && Self.replyReady($0, early) } }, "\(daemon.log)")
        let movedEarly = try await sendJSON("POST", daemon.port, "/v1/feedback/\(early)/move", token: ops,
                                            json: #"{"submission_id": "\#(submissions["S1003"]!)", "reason": "Recorded for Zaynab"}"#)
        #expect(movedEarly.0 == 201, "\(Self.text(movedEarly))")

        // Moved while it waits: S1002's feedback_ready is queued for noon, nothing sent yet.
        let heldSQL = """
            SELECT pushDelivery.state FROM pushDelivery JOIN event ON event.seq = pushDelivery.eventSeq
            WHERE event.type = 'feedback_ready' AND event.studentId = 'S1002'
            """
        #expect(await eventually { try bed.state.read { db in try String.fetchOne(db, sql: heldSQL) } == "pending" }, "S1002's reply queued")
        #expect(!bed.requests(to: s1002).contains { $0.apnsType == "feedback_ready" }, "held for S1002's quiet hours")
        let movedHeld = try await sendJSON("POST", daemon.port, "/v1/feedback/\(held)/move", token: ops,
                                           json: #"{"submission_id": "\#(submissions["S1008"]!)", "reason": "Recorded for Hamza"}"#)
        #expect(movedHeld.0 == 201, "\(Self.text(movedHeld))")

        #expect(await bed.server.settled { requests in
            requests.contains { $0.apnsToken == s1003 && $0.apnsStatus == 200 && Self.replyReady($0, early) }
                && requests.contains { $0.apnsToken == s1008 && $0.apnsStatus == 200 && Self.replyReady($0, held) }
                && requests.contains { $0.apnsToken == s1001 && $0.apnsStatus == 200 && $0.apnsType == "feedback_moved" }
                && requests.contains { $0.apnsToken == s1002 && $0.apnsStatus == 200 && $0.apnsType == "feedback_moved" }
        }, "\(bed.server.requests.suffix(8))\n\(daemon.log)")
        #expect(await bed.settle(except: ["S1002"]), "every due delivery answered and recorded")
        #expect(bed.requests(to: s1001).filter { Self.replyReady($0, early) }.count == 1, "no second feedback_ready to the student it left")
        #expect(bed.requests(to: s1001).filter { $0.apnsType == "feedback_moved" }.count == 1)
        #expect(bed.requests(to: s1003).filter { Self.replyReady($0, early) }.count == 1, "the student it joined, once")
        #expect(!bed.requests(to: s1003).contains { $0.apnsType == "feedback_moved" })
        #expect(bed.requests(to: s1008).filter { Self.replyReady($0, held) }.count == 1, "the student it joined, once, not held (their hours)")

        // Noon has passed (13:00 in New York): the push that waited is due — and dropped, the reply no longer S1002's.
        _ = await daemon.terminate()
        daemon = try bed.serve(clock: APNsTestBed.clock(at: "2026-11-22T18:00:00Z"))
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        #expect(await eventually { try bed.state.read { db in try String.fetchOne(db, sql: heldSQL) } != "pending" }, "\(daemon.log)")
        #expect(await bed.settle(), "every delivery answered and recorded")
        let (state, why) = try bed.state.read { db in
            (try String.fetchOne(db, sql: heldSQL),
             try String.fetchOne(db, sql: heldSQL.replacingOccurrences(of: "SELECT pushDelivery.state", with: "SELECT pushDelivery.lastError")))
        }
        #expect(state == "dropped" && why == "the reply was moved to another student", "\(state ?? "-"): \(why ?? "-")")
        #expect(!bed.requests(to: s1002).contains { Self.replyReady($0, held) }, "never sent to the student it left")
        #expect(bed.requests(to: s1002).filter { $0.apnsType == "feedback_moved" }.count == 1, "they were told it moved")
        #expect(bed.requests(to: s1008).filter { Self.replyReady($0, held) }.count == 1)
        _ = await daemon.terminate()
    }

    @Test("""
        An erased student's phone is removed, and nothing is pushed to its token afterwards — not even the notice queued \
        for it before the erasure (APNs had asked for an hour's wait), which is dropped when it comes due
        """)
    func erasedStudent() async throws {
        let bed = try await APNsTestBed.start()
        defer { bed.stop() }
        let erased = APNsTestBed.token(1), kept = APNsTestBed.token(2)
        try bed.server.script([erased: ["when": "Eid", "answers": [[503, "ServiceUnavailable", 3600]]]])
        var daemon = try bed.serve()
        defer { daemon.process.signal(SIGKILL) }
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        #expect(try await bed.register(.students, "S1001", token: erased, on: daemon) == 201)
        #expect(try await bed.register(.students, "S1002", token: kept, on: daemon) == 201)
        #expect(try await bed.announce("Eid", on: daemon) == 202)
        #expect(await bed.server.settled { requests in
            requests.contains { $0.apnsToken == erased && $0.apnsStatus == 503 && $0.announcementTitle == "Eid" }
                && requests.contains { $0.apnsToken == kept && $0.apnsStatus == 200 && $0.announcementTitle == "Eid" }
        }, "\(daemon.log)")
        // S1001's announcement waits an hour for its next try; nothing else of theirs is left to send.
        let waiting = """
            SELECT COUNT(*) FROM pushDelivery JOIN event ON event.seq = pushDelivery.eventSeq
            WHERE event.type = 'announcement' AND pushDelivery.ownerId = 'S1001' AND pushDelivery.state = 'pending' AND pushDelivery.attempts = 1
            """
        #expect(await eventually { try bed.state.read { db in try Int.fetchOne(db, sql: waiting) } == 1 }, "\(daemon.log)")
        #expect(await bed.settle(except: ["S1001"]))
        #expect(await eventually {
            try bed.state.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pushDelivery WHERE ownerId = 'S1001' AND state = 'pending' AND attempts = 0")
            } == 0
        })
        let before = bed.server.requests.map(\.apnsNumber).max() ?? 0

        let erasure = try await sendJSON("POST", daemon.port, "/v1/students/S1001/erasure", token: try await bed.issue("--ops", "ops"),
                                         json: #"{"reason": "Asked by the family", "force": true}"#)
        #expect(erasure.0 == 200, "\(Self.text(erasure))")
        #expect(try bed.state.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM device WHERE ownerKind = 'student' AND ownerId = 'S1001'") } == 0,
                "the erasure removed the phone")

        // Two hours later the queued notice is due; another announcement goes out meanwhile.
        _ = await daemon.terminate()
        let later = APNsTestBed.clock(at: "2026-11-22T17:00:00Z")
        daemon = try bed.serve(clock: later)
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        #expect(try await bed.announce("Second", on: daemon, clock: later) == 202)
        #expect(await bed.server.settled { $0.contains { $0.apnsToken == kept && $0.apnsStatus == 200 && $0.announcementTitle == "Second" } }, "\(daemon.log)")
        #expect(await eventually {
            try bed.state.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pushDelivery WHERE ownerId = 'S1001' AND state = 'pending'") } == 0
        }, "the queued notice came due: \(daemon.log)")
        #expect(await bed.settle(), "every delivery answered and recorded")
        let after = bed.requests(to: erased).filter { $0.apnsNumber > before }
        #expect(after.isEmpty, "nothing to the erased student's token after the erasure: \(after.compactMap(\.apnsType))")
        #expect(bed.requests(to: erased).filter { $0.announcementTitle == "Eid" }.map(\.apnsStatus) == [503], "the one try before the erasure")
        // Dropped on the way when it came due: its phone (and, never delivered to a webhook, its event) went with the erasure.
        #expect(try bed.state.read { db in
            try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM pushDelivery WHERE ownerId = 'S1001' AND state = 'dropped' AND lastError = 'the device or the event is gone'
                """)
        } == 1)
        _ = await daemon.terminate()
    }

    @Test("""
        A backup taken while a push waits for its retry, restored after the push went through: what was delivered before the \
        backup is not sent again; what was delivered after it is sent once more — at least once, as the webhook — with the \
        same apns-id and collapse id, so the phone shows it once
        """)
    func restoredBackup() async throws {
        // `tilawa backup` copies the SQLite file (on PostgreSQL it is refused).
        let bed = try await APNsTestBed.start(engine: .sqlite)
        defer { bed.stop() }
        let before = APNsTestBed.token(1), after = APNsTestBed.token(2)
        try bed.server.script([after: ["when": "Eid", "answers": [[503, "ServiceUnavailable", 3600]]]])
        var daemon = try bed.serve()
        defer { daemon.process.signal(SIGKILL) }
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        #expect(try await bed.register(.students, "S1001", token: before, on: daemon) == 201)
        #expect(try await bed.register(.students, "S1002", token: after, on: daemon) == 201)
        #expect(try await bed.announce("Eid", on: daemon) == 202)
        let eid: @Sendable ([String: Any]) -> Bool = { $0.announcementTitle == "Eid" }
        #expect(await bed.server.settled { requests in
            requests.contains { $0.apnsToken == before && $0.apnsStatus == 200 && eid($0) }
                && requests.contains { $0.apnsToken == after && $0.apnsStatus == 503 && eid($0) }
        }, "\(daemon.log)")
        #expect(await bed.settle(except: ["S1002"]))
        #expect(await eventually {
            try bed.state.read { db in
                try Int.fetchOne(db, sql: """
                    SELECT COUNT(*) FROM pushDelivery JOIN event ON event.seq = pushDelivery.eventSeq
                    WHERE event.type = 'announcement' AND pushDelivery.ownerId = 'S1002' AND pushDelivery.state = 'pending' AND pushDelivery.attempts = 1
                    """)
            } == 1
        }, "S1002's announcement waits for its retry")
        let backup = bed.state.scratch.path("backup")
        let made = try await bed.state.run(["backup", "create", backup])
        #expect(made.status == 0, "\(made.stderr)")

        // Two hours later the retry goes through: delivered after the backup.
        _ = await daemon.terminate()
        daemon = try bed.serve(clock: APNsTestBed.clock(at: "2026-11-22T17:00:00Z"))
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        #expect(await bed.server.settled { $0.contains { $0.apnsToken == after && $0.apnsStatus == 200 && eid($0) } }, "\(daemon.log)")
        #expect(await bed.settle())
        _ = await daemon.terminate()

        // The backup restored and served: its queue is as it was when the backup was made.
        let restored = bed.state.scratch.path("restored"), run = bed.state.scratch.path("restored-run")
        let restore = try await bed.state.run(["restore", backup, "--state-dir", restored])
        #expect(restore.status == 0, "\(restore.stdout)\(restore.stderr)")
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        daemon = try ServeProcess(stateDirectory: restored, port: try unusedPort(), directory: run,
                                  environment: bed.environment(clock: APNsTestBed.clock(at: "2026-11-22T18:00:00Z")))
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        #expect(await bed.server.settled { $0.filter { $0.apnsToken == after && $0.apnsStatus == 200 && eid($0) }.count >= 2 }, "\(daemon.log)")
        #expect(await bed.settle(stateDirectory: restored), "every delivery of the restored state answered and recorded")

        #expect(bed.requests(to: before).filter(eid).map(\.apnsStatus) == [200], "delivered before the backup: not sent again")
        let tries = bed.requests(to: after).filter(eid)
        #expect(tries.map(\.apnsStatus) == [503, 200, 200], "delivered after the backup: once more")
        #expect(Set(tries.compactMap { $0.apnsHeader("apns-id") }).count == 1 && Set(tries.compactMap { $0.apnsHeader("apns-collapse-id") }).count == 1,
                "every try the same notification: \(tries.map { "\($0.apnsHeader("apns-id") ?? "-") \($0.apnsHeader("apns-collapse-id") ?? "-")" })")
        _ = await daemon.terminate()
    }

    @Test("""
        The same device registration sent twice — again after its answer, or racing the first as a phone's retry does — \
        keeps one row, and each notice reaches the phone once
        """)
    func registeredTwice() async throws {
        let bed = try await APNsTestBed.start()
        defer { bed.stop() }
        let daemon = try bed.serve()
        defer { daemon.process.signal(SIGKILL) }
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        let again = APNsTestBed.token(1), racing = APNsTestBed.token(2)
        let s1001 = try await bed.issue("--student", "S1001"), s1002 = try await bed.issue("--student", "S1002")
        let first = try await sendJSON("PUT", daemon.port, "/v1/students/S1001/devices/phone", token: s1001, json: APNsTestBed.device(again))
        let second = try await sendJSON("PUT", daemon.port, "/v1/students/S1001/devices/phone", token: s1001, json: APNsTestBed.device(again))
        #expect(first.0 == 201 && second.0 == 200, "\(Self.text(first)) / \(Self.text(second))")
        let port = daemon.port
        async let one = sendJSON("PUT", port, "/v1/students/S1002/devices/phone", token: s1002, json: APNsTestBed.device(racing))
        async let two = sendJSON("PUT", port, "/v1/students/S1002/devices/phone", token: s1002, json: APNsTestBed.device(racing))
        let raced = try await [one, two]
        #expect(raced.map { $0.0 }.sorted() == [200, 201], "one made, one updated: \(raced.map { Self.text($0) })")
        let rows = try bed.state.read { db in
            try ["S1001", "S1002"].map { try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM device WHERE ownerKind = 'student' AND ownerId = ?", arguments: [$0]) ?? -1 }
        }
        #expect(rows == [1, 1], "one row each: \(rows)")

        #expect(try await bed.announce("Eid", on: daemon) == 202)
        #expect(await bed.server.settled { requests in
            [again, racing].allSatisfy { token in requests.contains { $0.apnsToken == token && $0.apnsStatus == 200 && $0.announcementTitle == "Eid" } }
        }, "\(daemon.log)")
        #expect(await bed.settle(), "every delivery answered and recorded")
        for token in [again, racing] {
            #expect(bed.requests(to: token).filter { $0.announcementTitle == "Eid" }.count == 1, "once to \(token.suffix(4))")
        }
        _ = await daemon.terminate()
    }
}
