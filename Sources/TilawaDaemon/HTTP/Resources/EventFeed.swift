import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore
import TilawaStore

/// `GET /v1/students/{id}/events`.
struct EventFeed: Encodable {
    var events: [EventFeedItem]
    /// Opaque to clients (today the last event's sequence number as text).
    var nextCursor: String

    init(records: [EventRecord], after: Int64) {
        events = records.compactMap(EventFeedItem.init)
        nextCursor = String(records.last?.seq ?? after)
    }
}
