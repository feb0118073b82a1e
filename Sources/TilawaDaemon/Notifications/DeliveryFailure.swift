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

    /// Stored as the event's `lastError`.
    var description: String { message }

    /// `text` on one line of at most 300 characters, control characters replaced.
    static func oneLine(_ text: String) -> String {
        let cleaned = String(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
        return cleaned.count > 300 ? String(cleaned.prefix(300)) + "…" : cleaned
    }
}
