import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore
import TilawaStore

/// One event of the feed: its payload plus the cursor to continue from.
struct EventFeedItem: Encodable {
    /// The sealed cursor of this event in its feed (`EventCursor`).
    var cursor: String
    var payload: EventPayload
    /// In a student's feed: whether the student has read it (up to the read cursor, or by
    /// itself); nil in a coach's feed, which has no read state.
    var read: Bool?

    /// `readCursor`: the student's read position, for a student's feed.
    init?(_ record: EventRecord, cursors: EventCursor, readCursor: Int64? = nil) {
        guard let seq = record.seq, let payload = try? JSONDecoder.api.decode(EventPayload.self, from: record.payload) else { return nil }
        cursor = cursors.text(for: seq)
        self.payload = payload
        read = readCursor.map { seq <= $0 || record.readAt != nil }
    }

    func encode(to encoder: any Encoder) throws {
        try payload.encode(to: encoder)
        var container = encoder.container(keyedBy: CursorKey.self)
        try container.encode(cursor, forKey: .cursor)
        try container.encodeIfPresent(read, forKey: .read)
    }

    enum CursorKey: String, CodingKey { case cursor, read }
}
