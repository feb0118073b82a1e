import Foundation

/// Formats instants the way students and coaches read them: "Saturday 14 March at 00:00".
///
/// English names are built in rather than taken from a locale so that messages are the
/// same on every machine and in every test. The zone is always the programme's
/// (`program.time_zone`), never the server's.
public enum HumanDate {
    /// "Saturday 14 March at 00:00" for `date` in `timeZone`.
    ///
    /// With `roundingUp` the time is rounded up to the next whole minute, for instants a
    /// student waits for (next attempt): showing 14:32 for 14:32:17 would send them back
    /// 17 seconds too early to be refused again.
    public static func format(_ date: Date, in timeZone: TimeZone, roundingUp: Bool = false) -> String {
        var shown = date
        if roundingUp {
            let seconds = date.timeIntervalSince1970
            shown = Date(timeIntervalSince1970: (seconds / 60).rounded(.up) * 60)
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.weekday, .day, .month, .hour, .minute], from: shown)
        let weekday = weekdayNames[((parts.weekday ?? 1) - 1 + 7) % 7]
        let month = monthNames[((parts.month ?? 1) - 1 + 12) % 12]
        let hour = twoDigits(parts.hour ?? 0)
        let minute = twoDigits(parts.minute ?? 0)
        return "\(weekday) \(parts.day ?? 1) \(month) at \(hour):\(minute)"
    }

    private static let weekdayNames = [
        "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
    ]
    private static let monthNames = [
        "January", "February", "March", "April", "May", "June",
        "July", "August", "September", "October", "November", "December",
    ]

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
