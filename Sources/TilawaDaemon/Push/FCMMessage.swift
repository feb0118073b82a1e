import Foundation
import TilawaCore
import TilawaStore

/// One FCM HTTP v1 `messages:send` body for one event to one Android device.
///
/// As for APNs, the app says the notice in its own strings: `android.notification` carries the
/// event's `message_key` as `body_loc_key` (`tilawa_<key>`, dots as underscores: an Android
/// string resource's name) and the title's as `title_loc_key` (`tilawa_<key>_title`), its
/// `params` as `body_loc_args` in the order of their names; the English `title` and `body`
/// are the fallback. `tag` replaces the notice of the same kind and week on the phone (and so
/// a notice sent twice shows once; an announcement's is its own: `APNsNotification.collapseKey`),
/// `collapse_key` keeps only the last for an offline phone, `notification_count` is the unread
/// count, `ttl` the time it is worth showing; the data has the event id, its type, the deep
/// link and the named params (as JSON: FCM's data values are strings).
enum FCMMessage {
    /// FCM refuses a message over 4,000 bytes.
    static let maximumPayload = 4_000

    static func make(eventId: String, payload event: EventPayload, token: String, badge: Int?, expiresAt: Date, now: Date) -> Data {
        let key = event.messageKey ?? event.type
        let params = (event.params ?? [:]).sorted { $0.key < $1.key }
        let title = APNsNotification.title(of: event)
        let ttl = max(0, Int(expiresAt.timeIntervalSince(now).rounded(.down)))
        func document(limit: Int?) -> Data {
            func cut(_ text: String) -> String {
                guard let limit, text.count > limit else { return text }
                return String(text.prefix(limit)) + "…"
            }
            let shortened = params.map { (key: $0.key, value: cut(APNsNotification.text($0.value))) }
            let body = cut(event.message)
            var notification: [String: Any] = [
                "title": title, "body": body, "title_loc_key": resource(key) + "_title", "body_loc_key": resource(key),
                "tag": APNsNotification.collapseKey(of: event),
            ]
            if !shortened.isEmpty { notification["body_loc_args"] = shortened.map(\.value) }
            if let badge { notification["notification_count"] = badge }
            let named = Dictionary(uniqueKeysWithValues: shortened.map { ($0.key, $0.value) })
            let paramsJSON = (try? JSONSerialization.data(withJSONObject: named, options: [.sortedKeys, .withoutEscapingSlashes]))
                .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            let message: [String: Any] = [
                "token": token,
                "notification": ["title": title, "body": body],
                "android": [
                    "collapse_key": APNsNotification.collapseKey(of: event), "ttl": "\(ttl)s", "priority": "HIGH",
                    "notification": notification,
                ] as [String: Any],
                "data": ["event_id": eventId, "type": event.type, "link": event.link, "params": paramsJSON],
            ]
            return (try? JSONSerialization.data(withJSONObject: ["message": message], options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        }
        return APNsNotification.fitting(maximumPayload, longest: ([event.message] + params.map { APNsNotification.text($0.value) }).map(\.count).max() ?? 0,
                                        document)
    }

    /// The Android string resource a message key names: `tilawa_submission_received_week_late`.
    static func resource(_ key: String) -> String {
        "tilawa_" + key.map { $0 == "." || $0 == "-" ? "_" : $0 }.map(String.init).joined()
    }
}
