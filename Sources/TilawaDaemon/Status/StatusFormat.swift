import Foundation
import TilawaCore

/// Human renderings of ages, sizes and instants, shared by check messages and the table.
enum StatusFormat {
    /// `45 s`, `12 min`, `3 h 5 min`, `2 d 3 h`.
    static func age(_ seconds: Int) -> String {
        let seconds = max(0, seconds)
        switch seconds {
        case ..<60: return "\(seconds) s"
        case ..<3_600: return "\(seconds / 60) min"
        case ..<86_400:
            let minutes = seconds % 3_600 / 60
            return "\(seconds / 3_600) h" + (minutes > 0 ? " \(minutes) min" : "")
        default:
            let hours = seconds % 86_400 / 3_600
            return "\(seconds / 86_400) d" + (hours > 0 ? " \(hours) h" : "")
        }
    }

    /// `48 h`, `1.5 h`.
    static func hours(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) h" : String(format: "%.1f h", value)
    }

    /// Binary units: `512 B`, `3.2 KiB`, `1.4 GiB`.
    static func bytes(_ value: Int64) -> String { Quantity.bytes(value) }

    /// `31 %`, or `0.4 %` below 1.
    static func percent(_ value: Double) -> String { Quantity.percent(value) }

    /// `2026-11-22 15:00:00 UTC`.
    static func instant(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d:%02d UTC", c.year ?? 0, c.month ?? 0, c.day ?? 0,
                      c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }

    /// `1 submission`, `3 submissions`.
    static func count(_ value: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(value) " + (value == 1 ? singular : plural ?? singular + "s")
    }
}
