import Crypto
import Foundation
import TilawaCore
import TilawaStore

/// One APNs request for one event to one device: its headers and its JSON payload.
///
/// The alert carries the event's `message_key` as `loc-key` (`tilawa.<key>`; the title's as
/// `title-loc-key`, `tilawa.<key>.title`) and its `params` as `loc-args`, in the order of
/// their names, so the app says it in its own strings; the English `title` and `body` are
/// there too for a key the app does not know yet. The named `params`, the event id and the
/// deep link travel as custom data (a Notification Service Extension formats from those).
struct APNsNotification: Sendable, Equatable {
    /// `apns-push-type`, `apns-topic`, `apns-collapse-id`, `apns-expiration`, `apns-priority`, `apns-id`.
    var headers: [(String, String)]
    var payload: Data

    static func == (lhs: APNsNotification, rhs: APNsNotification) -> Bool {
        lhs.headers.map { "\($0.0): \($0.1)" } == rhs.headers.map { "\($0.0): \($0.1)" } && lhs.payload == rhs.payload
    }

    /// APNs refuses a payload over 4 KiB.
    static let maximumPayload = 4_096

    /// The request for `event` (its payload as stored) to a device of the recipient.
    /// - Parameters:
    ///   - badge: the recipient's unread count.
    ///   - expiresAt: when the notice stops being worth showing (a reminder's deadline); nil:
    ///     APNs tries once (`apns-expiration: 0`).
    static func make(eventId: String, payload event: EventPayload, topic: String, badge: Int?, expiresAt: Date?) -> APNsNotification {
        let key = event.messageKey ?? event.type
        let params = (event.params ?? [:]).sorted { $0.key < $1.key }
        let title = Self.title(of: event)
        /// The document with the body and every text parameter cut to `limit` characters (nil: whole).
        func document(limit: Int?) -> Data {
            func cut(_ text: String) -> String {
                guard let limit, text.count > limit else { return text }
                return String(text.prefix(limit)) + "…"
            }
            let shortened = params.map { (key: $0.key, value: cut(Self.text($0.value))) }
            return Self.document(eventId: eventId, event: event, key: key, params: shortened, title: title, body: cut(event.message), badge: badge)
        }
        let payload = Self.fitting(maximumPayload, longest: ([event.message] + params.map { Self.text($0.value) }).map(\.count).max() ?? 0,
                                   document)
        let headers: [(String, String)] = [
            ("apns-push-type", "alert"),
            ("apns-topic", topic),
            ("apns-collapse-id", Self.collapseKey(of: event)),
            ("apns-expiration", expiresAt.map { String(Int($0.timeIntervalSince1970)) } ?? "0"),
            ("apns-priority", "10"),
            ("apns-id", Self.uuid(of: eventId)),
        ]
        return APNsNotification(headers: headers, payload: payload)
    }

    /// One per kind and week (`deadline_reminder-w12`): a later notice of the two replaces the
    /// earlier on the phone. An announcement is about no week and one never stands for
    /// another, so each has its own, `announcement-<its id>` (the event's id for one stored
    /// without it): the same on every phone it reaches and on every try. At most 64 bytes,
    /// APNs' limit for `apns-collapse-id` (FCM's `collapse_key` and `tag` take the same).
    static func collapseKey(of event: EventPayload) -> String {
        let scope: String = if event.type == EventType.announcement.rawValue {
            event.extra?.announcement?.id ?? event.id
        } else {
            event.week.map { $0.number.map { "w\($0)" } ?? $0.kind } ?? "none"
        }
        var key = "\(event.type)-\(scope)"
        while key.utf8.count > 64 { key.removeLast() }
        return key
    }

    /// The alert's English title: the week's (`Week 5 · Al-Mulk`), else Tilawa's.
    static func title(of event: EventPayload) -> String {
        guard let week = event.week else { return "Tilawa" }
        if let number = week.number { return "Week \(number) · \(week.title)" }
        return week.title
    }

    private static func document(eventId: String, event: EventPayload, key: String, params: [(key: String, value: String)],
                                 title: String, body: String, badge: Int?) -> Data {
        var alert: [String: Any] = [
            "title": title, "body": body,
            "title-loc-key": "tilawa.\(key).title", "loc-key": "tilawa.\(key)", "loc-args": params.map(\.value),
        ]
        if params.isEmpty { alert["loc-args"] = nil }
        var aps: [String: Any] = ["alert": alert, "sound": "default"]
        if let badge { aps["badge"] = badge }
        if let week = event.week { aps["thread-id"] = "week-\(week.number.map(String.init) ?? week.kind)" }
        let named = Dictionary(uniqueKeysWithValues: params.map { ($0.key, $0.value) })
        let document: [String: Any] = ["aps": aps, "event_id": eventId, "type": event.type, "link": event.link, "params": named]
        return (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
    }

    /// `document(nil)` when it fits in `limit` bytes; else (an announcement's long text) the
    /// document with its texts cut to the longest length that fits (`longest`: the longest
    /// text's), so the app's own strings, the ids and the link stay whole.
    static func fitting(_ limit: Int, longest: Int, _ document: (Int?) -> Data) -> Data {
        let whole = document(nil)
        guard whole.count > limit else { return whole }
        var low = 0, high = longest
        while low < high {
            let middle = (low + high + 1) / 2
            if document(middle).count <= limit { low = middle } else { high = middle - 1 }
        }
        return document(low)
    }

    /// A parameter as the app's format string takes it (`%@`): numbers as digits, instants in RFC 3339.
    static func text(_ value: MessageValue) -> String {
        switch value {
        case let .text(text): text
        case let .int(number): String(number)
        case let .number(number): String(number)
        case let .instant(instant): instant.formatted(.iso8601)
        }
    }

    /// The event id as the UUID APNs takes for `apns-id` (the same one every attempt: the
    /// delivery is one notification however often it is tried).
    static func uuid(of eventId: String) -> String {
        var bytes = Array(SHA256.hash(data: Data(eventId.utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50  // a name-based UUID's version
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { String(format: "%02X", $0) }.joined()
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }
}
