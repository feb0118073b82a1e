import Foundation
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// The pushes' queue in the store (issue 45), on both engines: one delivery per device per
/// event, the badge the unread count as it is when the push is claimed.
@Suite("Push deliveries: fanned out once per device, the badge falls as events are read")
struct PushQueueTests {
    static let at = TestStore.newYork(2026, 9, 20)

    @Test("Two announcements, two devices: one delivery per device per event however often fan-out runs; the badge counts unread events and falls once the student reads", arguments: TestEngine.all)
    func badgeFallsAsEventsAreRead(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let database = store.database
        for (device, n) in [("phone", 1), ("tablet", 2)] {
            _ = try await database.registerDevice(Device(owner: .student, ownerId: "S1001", deviceId: device, platform: .ios,
                                                         token: String(format: "%064x", n), environment: .production, locale: nil,
                                                         appVersion: nil, registeredAt: Self.at, updatedAt: Self.at))
        }
        func announce(_ title: String, at instant: Date) async throws {
            guard case .success = try await database.createAnnouncement(title: title, body: "Text of \(title).", audience: .all,
                                                                          publishAt: instant, by: "ops", now: instant) else {
                Issue.record("not announced")
                return
            }
            _ = try await database.publishDueAnnouncements(now: instant)
        }
        func fanOut(_ now: Date) async throws -> Int {
            try await database.fanOutPushes(platforms: [.ios], programmeQuietHours: nil, programmeZone: TimeZone(identifier: "America/New_York")!, now: now)
        }
        try await announce("First", at: Self.at)
        #expect(try await fanOut(Self.at) == 2)
        #expect(try await fanOut(Self.at) == 0, "an event is fanned out once")
        let first = try await database.claimPushes(platform: .ios, sender: "node-a", until: Self.at + 90, now: Self.at, limit: 10)
        #expect(first.count == 2 && first.allSatisfy { $0.badge == 1 }, "\(first.map(\.badge))")
        #expect(try await database.claimPushes(platform: .ios, sender: "node-b", until: Self.at + 90, now: Self.at, limit: 10).isEmpty,
                "claimed: another node does not take them")
        for job in first { try await database.finishPush(job, outcome: .sent, sender: "node-a", now: Self.at) }

        try await announce("Second", at: Self.at + 60)
        #expect(try await fanOut(Self.at + 60) == 2)
        let unread = try await database.claimPushes(platform: .ios, sender: "node-a", until: Self.at + 150, now: Self.at + 60, limit: 10)
        #expect(unread.map(\.badge) == [2, 2], "two unread")
        for job in unread { try await database.finishPush(job, outcome: .retry(at: Self.at + 120, error: "HTTP 503"), sender: "node-a", now: Self.at + 60) }
        // The student reads everything; the retry's badge says so.
        let newest = try await database.readState(studentId: "S1001").readCursor + 1_000
        _ = try await database.markEventsRead(studentId: "S1001", upTo: newest, now: Self.at + 90)
        let retried = try await database.claimPushes(platform: .ios, sender: "node-a", until: Self.at + 210, now: Self.at + 120, limit: 10)
        #expect(retried.map(\.badge) == [0, 0], "read: the badge falls to 0")
        #expect(retried.allSatisfy { $0.attempts == 1 })
        let summary = try await database.pushSummary(now: Self.at + 120)
        #expect(summary.pending == 2 && summary.stopped.isEmpty)
    }

    @Test("Android's deliveries waiting longest (its channel stopped) never keep an iPhone's from being claimed; a dead daemon's claims are given back, a live one's kept",
          arguments: TestEngine.all)
    func platformsApartAndDeadClaims(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let database = store.database
        for (student, device, platform) in [("S1001", "android", Device.Platform.android), ("S1002", "iphone", .ios)] {
            _ = try await database.registerDevice(Device(owner: .student, ownerId: student, deviceId: device, platform: platform,
                                                         token: device + "-token-" + String(repeating: "a", count: 40),
                                                         environment: .production, locale: nil, appVersion: nil, registeredAt: Self.at, updatedAt: Self.at))
        }
        guard case .success = try await database.createAnnouncement(title: "Eid", body: "No lesson.", audience: .all, publishAt: Self.at, by: "ops", now: Self.at)
        else {
            Issue.record("not announced")
            return
        }
        _ = try await database.publishDueAnnouncements(now: Self.at)
        #expect(try await database.fanOutPushes(platforms: [.ios, .android], programmeQuietHours: nil,
                                                programmeZone: TimeZone(identifier: "America/New_York")!, now: Self.at) == 2)
        // Whichever sorts first, a claim of one iPhone delivery is the iPhone's.
        let ios = try await database.claimPushes(platform: .ios, sender: "1@dead-host", until: Self.at + 90, now: Self.at, limit: 1)
        #expect(ios.map(\.device.deviceId) == ["iphone"])
        let android = try await database.claimPushes(platform: .android, sender: "2@live-host", until: Self.at + 90, now: Self.at, limit: 1)
        #expect(android.map(\.device.deviceId) == ["android"])
        #expect(try await database.releasePushClaims(unless: { $0 != "1@dead-host" }) == 1)
        #expect(try await database.claimPushes(platform: .ios, sender: "3@new", until: Self.at + 90, now: Self.at, limit: 1).map(\.device.deviceId) == ["iphone"],
                "given back: claimed again at once")
        #expect(try await database.claimPushes(platform: .android, sender: "3@new", until: Self.at + 90, now: Self.at, limit: 1).isEmpty,
                "a live sender's claim is kept")
    }

    @Test("The devices re-read together are each as they stand now (one signed out, one with a new token); outcomes stored together are stored as one by one",
          arguments: TestEngine.all)
    func batchedRereadAndOutcomes(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let database = store.database
        func device(_ id: String, token n: Int) -> Device {
            Device(owner: .student, ownerId: "S1001", deviceId: id, platform: .ios, token: String(format: "%064x", n), environment: .production,
                   locale: nil, appVersion: nil, registeredAt: Self.at, updatedAt: Self.at)
        }
        for (id, n) in [("phone", 1), ("tablet", 2), ("watch", 3)] { _ = try await database.registerDevice(device(id, token: n)) }
        guard case .success = try await database.createAnnouncement(title: "Eid", body: "No lesson.", audience: .all, publishAt: Self.at, by: "ops", now: Self.at)
        else {
            Issue.record("not announced")
            return
        }
        _ = try await database.publishDueAnnouncements(now: Self.at)
        #expect(try await database.fanOutPushes(platforms: [.ios], programmeQuietHours: nil,
                                                programmeZone: TimeZone(identifier: "America/New_York")!, now: Self.at) == 3)
        let jobs = try await database.claimPushes(platform: .ios, sender: "node-a", until: Self.at + 90, now: Self.at, limit: 10)
        #expect(Set(jobs.map(\.device.deviceId)) == ["phone", "tablet", "watch"])

        #expect(try await database.removeDevice(owner: .student, ownerId: "S1001", deviceId: "tablet"))
        _ = try await database.registerDevice(device("watch", token: 4))
        let now = try await database.currentDevices(jobs.map(\.device))
        #expect(Set(now.map(\.deviceId)) == ["phone", "watch"], "the signed-out tablet is missing")
        #expect(now.first { $0.deviceId == "watch" }?.token == String(format: "%064x", 4), "the watch's new token")
        #expect(now.first { $0.deviceId == "phone" }?.token == String(format: "%064x", 1))
        #expect(try await database.currentDevices([]).isEmpty)

        func job(_ id: String) throws -> PushJob { try #require(jobs.first { $0.device.deviceId == id }) }
        try await database.finishPushes([(try job("phone"), .sent), (try job("tablet"), .dropped(error: "gone")),
                                         (try job("watch"), .retry(at: Self.at + 120, error: "not sent"))], sender: "node-a", now: Self.at + 1)
        let summary = try await database.pushSummary(now: Self.at + 2)
        #expect(summary.pending == 1 && summary.sentLastDay == 1, "\(summary)")
        #expect(try await database.claimPushes(platform: .ios, sender: "node-a", until: Self.at + 90, now: Self.at + 60, limit: 10).isEmpty,
                "the retry waits for its time")
        let again = try await database.claimPushes(platform: .ios, sender: "node-a", until: Self.at + 210, now: Self.at + 120, limit: 10)
        #expect(again.map(\.device.deviceId) == ["watch"] && again.first?.attempts == 1)
        #expect(again.first?.device.token == String(format: "%064x", 4), "claimed again with the new token")
    }
}
