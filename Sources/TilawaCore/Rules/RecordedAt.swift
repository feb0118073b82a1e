import Foundation

/// When a recording made offline says it was made (`Recorded-At`): it decides `late` only —
/// the attempt window and the locked and closed rules use the server's clock — and only when
/// it is believable: not in the future (a minute of clock skew allowed) and not more than
/// the offline allowance (`uploads.max_offline_hours`, default 72) before the upload began.
public struct RecordedAt: Sendable, Hashable {
    /// The instant the app claims.
    public let claimed: Date

    public init(claimed: Date) {
        self.claimed = claimed
    }

    /// Parses an RFC 3339 date-time (`2026-11-20T21:14:05Z`, fractional seconds and offsets
    /// allowed); nil otherwise.
    public init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count <= 64 else { return nil }
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let date = plain.date(from: trimmed) ?? fractional.date(from: trimmed) else { return nil }
        self.init(claimed: date)
    }

    /// Clock skew tolerated between the phone and the server.
    public static let skew: TimeInterval = 60

    /// The instant `late` is judged at: the claim when believable, else nil (the server's clock).
    public func lateReference(uploadBegan: Date, receivedAt: Date, maxOffline: TimeInterval) -> Date? {
        guard claimed <= receivedAt.addingTimeInterval(Self.skew), claimed >= uploadBegan.addingTimeInterval(-maxOffline) else {
            return nil
        }
        return min(claimed, receivedAt)
    }
}
