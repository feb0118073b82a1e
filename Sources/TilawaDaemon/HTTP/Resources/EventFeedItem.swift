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

    init?(_ record: EventRecord, cursors: EventCursor) {
        guard let seq = record.seq, let payload = try? JSONDecoder.api.decode(EventPayload.self, from: record.payload) else { return nil }
        cursor = cursors.text(for: seq)
        self.payload = payload
    }

    func encode(to encoder: any Encoder) throws {
        try payload.encode(to: encoder)
        var container = encoder.container(keyedBy: CursorKey.self)
        try container.encode(cursor, forKey: .cursor)
    }

    enum CursorKey: String, CodingKey { case cursor }
}
