import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import TilawaStore

/// Why one POST did not deliver its event.
struct DeliveryFailure: Sendable, CustomStringConvertible {
    /// The receiver's status, when it answered.
    var status: Int?
    /// What happened, one line.
    var message: String
    /// A 429 or 503's `Retry-After`, in seconds from now.
    var retryAfter: TimeInterval? = nil

    /// `Retry-After` as delta-seconds or an HTTP-date (RFC 9110 §10.2.3), in seconds from `now`.
    static func retryAfter(_ value: String?, now: Date) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value), seconds >= 0 { return TimeInterval(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    /// Stored as the event's `lastError`.
    var description: String { message }

    /// `text` on one line of at most 300 characters, control characters replaced.
    static func oneLine(_ text: String) -> String {
        let cleaned = String(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
        return cleaned.count > 300 ? String(cleaned.prefix(300)) + "…" : cleaned
    }
}
