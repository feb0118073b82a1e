import Foundation
import GRDB
import Logging
import Testing
@testable import TilawaDaemon
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

@Suite("Webhook delivery to a real receiver on loopback")
struct WebhookDeliveryTests {
    private func notifier(
        _ database: AppDatabase, url: URL?, options: WebhookNotifierService.Options = fastOptions(),
        wakeup: WakeupSignal = WakeupSignal(), metrics: TilawaMetrics = TilawaMetrics(), logger: Logger = quietLogger
    ) -> WebhookNotifierService {
        WebhookNotifierService(
            database: database, endpoint: url.map { WebhookEndpoint(url: $0, secret: webhookSecret) }, options: options,
            wakeup: wakeup, metrics: metrics, logger: logger)
    }

    private func allDelivered(_ outbox: OutboxFixture) throws -> Bool {
        try outbox.events().allSatisfy { $0.deliveredAt != nil }
    }

    @Test("A receiver failing its first calls (500, a dropped connection, 503, a late answer, a redirect, 404) gets every event signed, once after de-dup, in order per student")
    func failingReceiver() async throws {
        let outbox = try OutboxFixture()
        defer { outbox.remove() }
        for week in 1...4 {
            for student in ["S1001", "S1002", "S1003"] { try outbox.addEvent(student: student, week: week) }
        }
        let events = try outbox.events()
        let faults: [ReceiverFault] = [
            .status(.internalServerError), .closeConnection, .status(.serviceUnavailable), .takeThenAnswerLate(.seconds(30)),
            .status(.movedPermanently), .status(.notFound),
        ]
        let receiver = WebhookReceiver(faults: faults)
        let metrics = TilawaMetrics()
        let logs = LogRecorder()
        try await receiver.serve { url in
            let services = RunningServices([
                // A timeout far above a loopback answer even on a loaded machine (4 s was not, once,
                // in a full suite on 2 cores), far below the late answer.
                notifier(outbox.database, url: url, options: fastOptions(timeout: 10), metrics: metrics, logger: logs.logger),
            ])
            #expect(await eventually { try allDelivered(outbox) })
            #expect(await eventually { metricValue("tilawa_notifications_undelivered", in: metrics) == 0 })
            try await services.stop()
        }

        let calls = receiver.calls
        #expect(calls.allSatisfy { $0.signatureError == nil }, "\(calls.compactMap(\.signatureError))")
        #expect(calls.allSatisfy { $0.contentType == "application/json" && $0.userAgent == "tilawa" })
        let byId = Dictionary(uniqueKeysWithValues: events.map { ($0.id, $0) })
        for call in calls {
            let event = try #require(call.eventId.flatMap { byId[$0] }, "an event id the outbox holds")
            #expect(call.body == event.payload, "the stored payload, byte for byte")
            #expect(call.eventType == event.type)
        }
        // At least once: the late answer made the notifier send that event again.
        #expect(Set(receiver.takenOnce) == Set(events.map(\.id)))
        #expect(receiver.takenOnce.count == events.count)
        #expect(calls.filter(\.wasTaken).count > events.count, "the event answered late was taken twice")
        #expect(Set(receiver.answered).count == receiver.answered.count, "no event was acknowledged twice")
        #expect(callsAreInOrderPerRecipient(calls, events: events))

        let stored = try outbox.events()
        #expect(stored.allSatisfy { $0.deliveredAt != nil && $0.lastError == nil && $0.attempts >= 1 })
        #expect(stored.map(\.attempts).reduce(0, +) == calls.count, "every POST counted once as an attempt")
        let failures = logs.all.filter { $0.message == "webhook delivery failed" }
        #expect(failures.count == faults.count, "one log line per failed attempt")
        #expect(failures.allSatisfy { $0.level == .warning && $0.metadata["event"] != nil && $0.metadata["attempt"] != nil })
        #expect(failures.contains { $0.metadata["status"] == "500" })
        #expect(failures.contains { $0.metadata["status"] == "301" }, "redirects are not followed")
    }

    @Test("A receiver that keeps failing: attempts count up, lastError says why, the student's later events wait")
    func keepsFailing() async throws {
        let outbox = try OutboxFixture()
        defer { outbox.remove() }
        let first = try outbox.addEvent(student: "S1001", week: 1)
        let second = try outbox.addEvent(student: "S1001", week: 2)
        let receiver = WebhookReceiver(faults: Array(repeating: .status(.badGateway), count: 1_000))
        let metrics = TilawaMetrics()
        try await receiver.serve { url in
            let services = RunningServices([notifier(outbox.database, url: url, metrics: metrics)])
            #expect(await eventually { try outbox.events().first?.attempts ?? 0 >= 3 })
            try await services.stop()
        }
        let stored = try outbox.events()
        #expect(stored.allSatisfy { $0.deliveredAt == nil })
        #expect(stored[0].lastError?.hasPrefix("HTTP 502") == true)
        #expect(stored[0].lastError?.contains("receiver says no") == true)
        #expect(stored[1].attempts == 0)
        #expect(receiver.calls.allSatisfy { $0.eventId == first.id }, "\(second.id) never sent before \(first.id) is delivered")
        #expect(metricValue("tilawa_notifications_undelivered", in: metrics) == 2)
        #expect(metricValue("tilawa_notifications_oldest_undelivered_age_seconds", in: metrics) ?? -1 >= 0)
    }

    @Test("Connection refused is a failure like any other, retried later")
    func connectionRefused() async throws {
        let outbox = try OutboxFixture()
        defer { outbox.remove() }
        try outbox.addEvent(student: "S1001", week: 1)
        // A port that was just free: listen on it, then stop listening.
        let closed = try await WebhookReceiver().serve { $0 }
        let services = RunningServices([notifier(outbox.database, url: closed, options: fastOptions(timeout: 0.5))])
        #expect(await eventually { try outbox.events().first?.attempts ?? 0 >= 2 })
        try await services.stop()
        let event = try #require(try outbox.events().first)
        #expect(event.deliveredAt == nil)
        #expect(event.lastError?.isEmpty == false)
    }

    @Test("Events survive a graceful restart: in-flight POSTs finish, the new service sends the rest, nothing twice")
    func gracefulRestart() async throws {
        let outbox = try OutboxFixture()
        defer { outbox.remove() }
        for week in 1...6 {
            for student in ["S1001", "S1002", "S1003", "S1004"] { try outbox.addEvent(student: student, week: week) }
        }
        let events = try outbox.events()
        let receiver = WebhookReceiver(hold: .milliseconds(400))
        // What is tested is the restart, not the POST timeout: on a loaded box a POST the
        // receiver answered could pass 5 s and be sent again, as the contract allows.
        let patient = fastOptions(timeout: TimeInterval(TestTime.hangSeconds))
        try await receiver.serve { url in
            let first = RunningServices([notifier(outbox.database, url: url, options: patient)])
            #expect(await eventually { receiver.answered.count >= 4 && receiver.inFlight > 0 })
            try await first.stop()
            // Everything the receiver acknowledged was recorded: the POSTs in flight finished.
            let delivered = Set(try outbox.events().filter { $0.deliveredAt != nil }.map(\.id))
            #expect(delivered == Set(receiver.answered))
            #expect(delivered.count < events.count, "stopped mid-way")
            #expect(receiver.inFlight == 0)

            receiver.stopHolding()
            // A new process: its own connection to the same file.
            let reopened = try AppDatabase.open(path: outbox.path)
            let second = RunningServices([notifier(reopened, url: url, options: patient)])
            #expect(await eventually { try allDelivered(outbox) })
            try await second.stop()
        }
        #expect(receiver.answered.count == events.count, "nothing sent twice")
        #expect(Set(receiver.answered) == Set(events.map(\.id)), "nothing lost")
        #expect(callsAreInOrderPerRecipient(receiver.calls, events: events))
    }

    @Test("Events survive a hard stop mid-POST: the next service sends them again; once after de-dup")
    func hardStop() async throws {
        let outbox = try OutboxFixture()
        defer { outbox.remove() }
        for week in 1...3 {
            for student in ["S1001", "S1002"] { try outbox.addEvent(student: student, week: week) }
        }
        let events = try outbox.events()
        // Each student's first event is answered; their second is held until released, so the
        // kill certainly cuts two POSTs the receiver has already taken.
        let receiver = WebhookReceiver(gateAfter: 2)
        try await receiver.serve { url in
            let first = RunningServices([notifier(outbox.database, url: url)])
            #expect(await eventually { receiver.answered.count == 2 && receiver.waitingAtGate == 2 })
            await first.kill()
            let undelivered = try outbox.events().filter { $0.deliveredAt == nil }
            #expect(undelivered.count == 4, "the two cut off and the two never sent")
            // A cancelled POST counts no attempt: it is simply due again.
            #expect(undelivered.allSatisfy { $0.lastError == nil })

            receiver.stopHolding()
            let second = RunningServices([notifier(try AppDatabase.open(path: outbox.path), url: url)])
            #expect(await eventually { try allDelivered(outbox) })
            try await second.stop()
        }
        #expect(receiver.takenOnce.count == events.count)
        #expect(Set(receiver.takenOnce) == Set(events.map(\.id)))
        #expect(receiver.calls.filter(\.wasTaken).count == events.count + 2, "the two POSTs cut off were received again")
        #expect(callsAreInOrderPerRecipient(receiver.calls, events: events))
    }

    @Test("Different students' events go out concurrently, at most four at a time; one student's never overlap")
    func boundedConcurrency() async throws {
        let outbox = try OutboxFixture()
        defer { outbox.remove() }
        for week in 1...2 {
            for index in 1...8 { try outbox.addEvent(student: "S10\(10 + index)", week: week) }
        }
        let receiver = WebhookReceiver(hold: .milliseconds(300))
        try await receiver.serve { url in
            let services = RunningServices([notifier(outbox.database, url: url)])
            #expect(await eventually { try allDelivered(outbox) })
            try await services.stop()
        }
        #expect(receiver.maxInFlight <= 4)
        #expect(receiver.maxInFlight > 1)
        #expect(receiver.maxInFlightPerStudent == 1)
        // Every event answered. A POST the notifier gave up on (its 5-s timeout, on a loaded
        // box) is sent again with its id, as the contract allows: counted once.
        #expect(Set(receiver.answered).count == 16, "\(receiver.answered)")
        #expect(Set(receiver.answered) == Set(try outbox.events().map(\.id)))
    }

    @Test("A new event goes out on the daemon's wake-up signal, without waiting for the poll")
    func wakeup() async throws {
        let outbox = try OutboxFixture()
        defer { outbox.remove() }
        let receiver = WebhookReceiver()
        let signal = WakeupSignal()
        try await receiver.serve { url in
            let services = RunningServices([
                notifier(outbox.database, url: url, options: fastOptions(pollInterval: .seconds(3_600)), wakeup: signal),
            ])
            // The service has looked at the (empty) outbox and sleeps for an hour.
            try await Task.sleep(for: .milliseconds(200))
            let event = try outbox.addEvent(student: "S1001", week: 5)
            #expect(await eventually {
                signal.signal()
                return receiver.answered == [event.id]
            })
            try await services.stop()
        }
    }

    @Test("Without a URL the service idles: events stay in the outbox, and it ends at shutdown")
    func noURL() async throws {
        let outbox = try OutboxFixture()
        defer { outbox.remove() }
        try outbox.addEvent(student: "S1001", week: 1)
        let signal = WakeupSignal()
        let services = RunningServices([notifier(outbox.database, url: nil, wakeup: signal)])
        signal.signal()
        try await Task.sleep(for: .milliseconds(200))
        try await services.stop()
        let event = try #require(try outbox.events().first)
        #expect(event.deliveredAt == nil && event.attempts == 0)
    }

    @Test("An accepted upload reaches the webhook as a signed submission_received naming the week, its title, when, and a deep link")
    func uploadToWebhook() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let receiver = WebhookReceiver(now: { daemon.clock.now })
        try await receiver.serve { url in
            let service = WebhookNotifierService(
                database: daemon.runtime.database, endpoint: WebhookEndpoint(url: url, secret: webhookSecret),
                options: fastOptions(pollInterval: .seconds(3_600)), wakeup: daemon.api.wakeup, metrics: daemon.api.metrics,
                clock: daemon.runtime.clock, logger: daemon.logger)
            let app = TilawaServer.makeApplication(api: daemon.api, logger: daemon.logger, services: [service])
            try await app.live { client in
                let headers = try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"])
                let response = try await client.execute(uri: "/v1/students/S1001/weeks/12/submissions", method: .post,
                                                        headers: headers, body: try TestDaemon.fixture("speech.opus"))
                #expect(response.status == .created)
                // The poll is an hour: only the upload's wake-up can bring the event out in time.
                #expect(await daemon.eventually { receiver.answered.count == 1 })
            }
        }
        let call = try #require(receiver.calls.first)
        #expect(call.signatureError == nil)
        #expect(call.eventType == "submission_received")
        let json = try #require(try JSONSerialization.jsonObject(with: call.body) as? [String: Any])
        let week = try #require(json["week"] as? [String: Any])
        let title = try await daemon.runtime.database.engine.read { db in
            try String.fetchOne(db, sql: """
                SELECT title FROM curriculumWeek JOIN enrolment ON enrolment.levelId = curriculumWeek.levelId
                WHERE enrolment.studentId = 'S1001' AND week = 12
                """)
        }
        #expect(json["id"] as? String == call.eventId)
        #expect(json["type"] as? String == "submission_received")
        #expect(json["student_id"] as? String == "S1001")
        #expect(week["number"] as? Int == 12)
        #expect(title != nil && week["title"] as? String == title)
        #expect((json["occurred_at"] as? String)?.isEmpty == false)
        #expect((json["link"] as? String)?.hasPrefix("quranflow://weeks/12/") == true)
        #expect((json["message"] as? String)?.isEmpty == false)
    }
}

@Suite("Standard Webhooks: a stock verifier accepts every delivery")
struct StandardWebhooksTests {
    @Test("the standardwebhooks package (PyPI) verifies each delivery with the current secret, and during a rotation with either")
    func stockVerifier() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let previous = Array("the-key-being-rotated-out".utf8)
        for (round, endpointSecrets) in [[webhookSecret], [webhookSecret, previous]].enumerated() {
            // Signed at the real time: the stock verifier checks the timestamp against its own clock.
            let receiver = WebhookReceiver(now: { Date() })
            try await receiver.serve { url in
                let endpoint = WebhookEndpoint(url: url, secret: endpointSecrets[0], previousSecret: endpointSecrets.count > 1 ? previous : nil)
                let service = WebhookNotifierService(
                    database: daemon.runtime.database, endpoint: endpoint, options: fastOptions(), wakeup: daemon.api.wakeup,
                    metrics: daemon.api.metrics, clock: { Date() }, logger: daemon.logger)
                let staged = daemon.runtime.stateDirectory.newStagingPath(extension: "opus")
                try FileManager.default.copyItem(atPath: fixturesDirectory.appendingPathComponent("speech.opus").path, toPath: staged)
                _ = try daemon.runtime.intake.submit(stagedPath: staged, studentId: round == 0 ? "S1001" : "S1002", slot: .week(12),
                                                     origin: .cli, fileExtension: "opus")
                // An event about no student (null student_id and week) is signed and verified alike.
                if round == 0 {
                    #expect(try await daemon.runtime.database.recordStorageLow(
                        .init(freeBytes: 1, totalBytes: 2, minimumFreeBytes: 0), timeZone: .gmt, now: Date()))
                }
                let services = RunningServices([service])
                #expect(await daemon.eventually { receiver.answered.count >= (round == 0 ? 2 : 1) })
                try await services.stop()
            }
            let calls = receiver.calls.filter { $0.fault == nil }
            if round == 0 {
                #expect(calls.contains { String(decoding: $0.body, as: UTF8.self).contains("\"student_id\":null") })
            }
            #expect(!calls.isEmpty && calls.allSatisfy { $0.signatureError == nil })
            #expect(calls.allSatisfy { ($0.standardHeaders["webhook-signature"]?.split(separator: " ").count ?? 0) == endpointSecrets.count })
            let lines = try calls.map { call -> String in
                let object: [String: Any] = ["body": call.body.base64EncodedString(), "headers": call.standardHeaders]
                return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
            }
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let file = scratch.path("deliveries.jsonl")
            try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            let python = packageRoot.appendingPathComponent(".venv-test/bin/python").path
            let script = packageRoot.appendingPathComponent("Tests/contract/verify_standard_webhooks.py").path
            let result = try await runProcess(
                python, [script, file] + endpointSecrets.map(StandardWebhookSignature.verifierSecret), timeout: TestTime.hangInterval)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.split(separator: "\n").filter { $0.hasPrefix("OK ") }.count == calls.count)
        }
    }
}

@Suite("Webhook receivers that say when, or that they are gone")
struct WebhookControlTests {
    @Test("a 503 with Retry-After: the next attempt waits that long; a 429 with an HTTP-date too")
    func retryAfter() async throws {
        let outbox = try OutboxFixture()
        defer { outbox.remove() }
        let event = try outbox.addEvent(student: "S1001", week: 3)
        // The notifier's clock stands still, so the stored due time is exactly its "now" plus the wait.
        let now = Date(timeIntervalSince1970: (Date().timeIntervalSince1970).rounded(.down))
        let later = now.addingTimeInterval(600)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        for (fault, atLeast) in [(ReceiverFault.statusRetryAfter(.serviceUnavailable, "120"), 120.0),
                                 (.statusRetryAfter(.tooManyRequests, formatter.string(from: later)), 600.0)] {
            try await outbox.database.engine.write { db in
                try db.execute(sql: "UPDATE event SET nextAttemptAt = ?, attempts = 0", arguments: [Date(timeIntervalSince1970: 0)])
            }
            let receiver = WebhookReceiver(faults: [fault])
            try await receiver.serve { url in
                let services = RunningServices([WebhookNotifierService(
                    database: outbox.database, endpoint: WebhookEndpoint(url: url, secret: webhookSecret), options: fastOptions(),
                    wakeup: WakeupSignal(), metrics: TilawaMetrics(), clock: { now }, logger: quietLogger)])
                #expect(await eventually { try outbox.events().first?.attempts == 1 })
                try await services.stop()
            }
            let stored = try #require(try outbox.events().first { $0.id == event.id })
            #expect(stored.deliveredAt == nil)
            #expect(stored.nextAttemptAt.timeIntervalSince(now) >= atLeast, "\(fault): \(stored.nextAttemptAt)")
            #expect(stored.nextAttemptAt.timeIntervalSince(now) <= atLeast + 2)
        }
    }

    @Test("a 410 turns deliveries off (status CRITICAL) until tilawa events redeliver; --since replays delivered events")
    func goneThenRedeliver() async throws {
        let outbox = try OutboxFixture()
        defer { outbox.remove() }
        let first = try outbox.addEvent(student: "S1001", week: 3)
        let receiver = WebhookReceiver(faults: [.status(.gone)])
        try await receiver.serve { url in
            let wakeup = WakeupSignal()
            let services = RunningServices([WebhookNotifierService(
                database: outbox.database, endpoint: WebhookEndpoint(url: url, secret: webhookSecret), options: fastOptions(),
                wakeup: wakeup, metrics: TilawaMetrics(), logger: quietLogger)])
            #expect(await eventually { try outbox.database.webhookDisabled() != nil })
            #expect(try outbox.database.webhookDisabled()?.reason == "the receiver answered 410 Gone to event \(first.id)")
            let facts = try await outbox.database.statusFacts(now: Date(), feedbackDue: 48 * 3_600)
            #expect(facts.webhookDisabled?.hasPrefix("the receiver answered 410 Gone") == true)
            // Off: a new event and a wake-up bring nothing to the receiver.
            _ = try outbox.addEvent(student: "S1002", week: 3)
            wakeup.signal()
            try await Task.sleep(for: .milliseconds(500))
            #expect(receiver.calls.count == 1)

            let done = try outbox.database.redeliverEvents(since: nil, studentId: nil, now: Date())
            #expect(done == .init(replayed: 0, pending: 2, reenabled: true))
            wakeup.signal()
            #expect(await eventually { try outbox.events().allSatisfy { $0.deliveredAt != nil } })
            // Replaying one student's delivered events queues them again.
            let replay = try outbox.database.redeliverEvents(since: Date(timeIntervalSince1970: 0), studentId: "S1001", now: Date())
            #expect(replay == .init(replayed: 1, pending: 0, reenabled: false))
            wakeup.signal()
            #expect(await eventually { receiver.answered.filter { $0 == first.id }.count == 2 })
            try await services.stop()
        }
    }
}
