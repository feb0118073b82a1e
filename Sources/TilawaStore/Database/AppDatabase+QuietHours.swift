import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// Of `events` (queue heads due now), holds each that would push to a student inside their
    /// quiet hours (`notifications.quiet_hours`, or their own from preferences, in their own
    /// zone) until those end: its `nextAttemptAt` moves there, and the seqs held are returned.
    ///
    /// Only what pushes and has a category a student may silence waits (feedback, deadlines,
    /// announcements, answers): a refusal, a lost recording or a receipt of their own never
    /// does, and neither does a notice behind which one of those is queued — a student whose
    /// recording was just received or refused is awake, and their queue stays in order. The
    /// calendar's own notices were placed outside the quiet hours when they were recorded;
    /// this is for what happens at night (a coach answering at 23:30).
    public func holdForQuietHours(_ events: [EventRecord], programme: NotificationSchedule.QuietHours?, programmeZone: TimeZone,
                                  now: Date) throws -> Set<Int64> {
        let candidates = events.filter(Self.mayBeHeld)
        guard !candidates.isEmpty else { return [] }
        let neverHeld = EventType.allCases.filter { $0.pushCategory == nil }.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        return try engine.write { db in
            var held = Set<Int64>()
            for event in candidates {
                guard let seq = event.seq, let studentId = event.studentId,
                      let student = try StudentRecord.fetchOne(db, key: studentId),
                      let quiet = student.quietHours(or: programme) else { continue }
                var calendar = Calendar(identifier: .gregorian)
                calendar.timeZone = student.zone(or: programmeZone)
                guard let end = quiet.end(containing: now, calendar: calendar), end > now else { continue }
                let awake = try Bool.fetchOne(db, sql: """
                    SELECT EXISTS (SELECT 1 FROM event WHERE queue = ? AND seq > ? AND deliveredAt IS NULL AND type IN (\(neverHeld)))
                    """, arguments: [event.queue, seq]) ?? false
                guard !awake else { continue }
                try db.execute(sql: "UPDATE event SET nextAttemptAt = ? WHERE seq = ? AND deliveredAt IS NULL AND nextAttemptAt < ?",
                               arguments: [end, seq, end])
                held.insert(seq)
            }
            return held
        }
    }

    /// Whether `event` is a student's push of a category they may silence.
    static func mayBeHeld(_ event: EventRecord) -> Bool {
        guard event.recipient == "student", EventType(rawValue: event.type)?.pushCategory != nil else { return false }
        struct Push: Decodable { let push: Bool? }
        return (try? JSONDecoder().decode(Push.self, from: event.payload))?.push ?? false
    }
}
