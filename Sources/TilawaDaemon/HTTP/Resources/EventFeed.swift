import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore
import TilawaStore

/// `GET /v1/students/{id}/events`: a page of the feed, forwards (`after`, oldest first) or
/// backwards (`before`, newest first), with the student's read position.
struct EventFeed: Encodable {
    var events: [EventFeedItem]
    /// Opaque to clients (a sequence number as text): pass it back as the same parameter.
    /// Forwards, the newest event's (the request's `after` on an empty page); backwards, the
    /// oldest event's (the request's `before` on an empty page).
    var nextCursor: String
    /// Events newer than the read position (`POST …/events/read`).
    var unreadCount: Int
    /// The cursor read up to; "0" when nothing is read.
    var readCursor: String

    /// A page read from `cursor` (the request's `after` or `before`) onwards, in the page's order.
    init(records: [EventRecord], from cursor: Int64, readState: AppDatabase.ReadState) {
        events = records.compactMap(EventFeedItem.init)
        nextCursor = String(records.last?.seq ?? cursor)
        unreadCount = readState.unreadCount
        readCursor = String(readState.readCursor)
    }
}

/// `GET /v1/coaches/{id}/events`: a page of a coach's notifications.
struct CoachEventFeed: Encodable {
    var events: [EventFeedItem]
    var nextCursor: String
}

/// The answer of `POST /v1/students/{id}/events/read`.
struct ReadStateResource: Encodable {
    var unreadCount: Int
    var readCursor: String

    init(_ state: AppDatabase.ReadState) {
        unreadCount = state.unreadCount
        readCursor = String(state.readCursor)
    }
}
