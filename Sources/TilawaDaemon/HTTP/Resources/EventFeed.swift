import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore
import TilawaStore

/// `GET /v1/students/{id}/events`: a page of the feed, forwards (`after`, oldest first) or
/// backwards (`before`, newest first), with the student's read position.
struct EventFeed: Encodable {
    var events: [EventFeedItem]
    /// Opaque to clients (a sealed `EventCursor`): pass it back as the same parameter.
    /// Forwards, the newest event's (the request's `after` on an empty page); backwards, the
    /// oldest event's (the request's `before` on an empty page).
    var nextCursor: String
    /// Events newer than the read position (`POST …/events/read`).
    var unreadCount: Int
    /// The cursor read up to; the cursor of the feed's start when nothing is read.
    var readCursor: String

    /// A page read from `position` (the request's `after` or `before`, or 0) onwards, in the
    /// page's order, with the cursors of `cursors`' feed.
    init(records: [EventRecord], from position: Int64, readState: AppDatabase.ReadState, cursors: EventCursor) {
        events = records.compactMap { EventFeedItem($0, cursors: cursors, readCursor: readState.readCursor) }
        nextCursor = cursors.text(for: records.last?.seq ?? position)
        unreadCount = readState.unreadCount
        readCursor = cursors.text(for: readState.readCursor)
    }
}

/// `GET /v1/coaches/{id}/events`: a page of a coach's notifications.
struct CoachEventFeed: Encodable {
    var events: [EventFeedItem]
    var nextCursor: String

    /// A page read from `position` onwards, as `EventFeed`.
    init(records: [EventRecord], from position: Int64, cursors: EventCursor) {
        events = records.compactMap { EventFeedItem($0, cursors: cursors) }
        nextCursor = cursors.text(for: records.last?.seq ?? position)
    }
}

/// The answer of `POST /v1/students/{id}/events/read`.
struct ReadStateResource: Encodable {
    var unreadCount: Int
    var readCursor: String

    init(_ state: AppDatabase.ReadState, cursors: EventCursor) {
        unreadCount = state.unreadCount
        readCursor = cursors.text(for: state.readCursor)
    }
}
