import Foundation
import Synchronization

/// Formats instants the way students and coaches read them: "Saturday 14 March, 00:00 EST".
///
/// English names are built in rather than taken from a locale so that messages are the
/// same on every machine and in every test. The zone is always the programme's
/// (`program.time_zone`), never the server's, and it is always named: a student abroad
/// must know which midnight is meant. The abbreviation comes from ICU's English names
/// ("EDT", "GMT"); a zone that has none in English is written as its offset ("GMT+3").
public enum HumanDate {
    /// "Saturday 14 March, 00:00 EST" for `date` in `timeZone`.
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
        return "\(weekday) \(parts.day ?? 1) \(month), \(hour):\(minute) \(zoneName(of: shown, in: timeZone))"
    }

    /// "Saturday 14 March" (no time), for days such as an end-of-course result date.
    public static func day(_ date: Date, in timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.weekday, .day, .month], from: date)
        return "\(weekdayNames[((parts.weekday ?? 1) - 1 + 7) % 7]) \(parts.day ?? 1) \(monthNames[((parts.month ?? 1) - 1 + 12) % 12])"
    }

    /// The zone's short name at `date` ("EDT" in summer, "EST" in winter for New York; "WIB"
    /// for Jakarta, "GST" for Dubai), or its offset ("GMT+3") where the zone has no short
    /// name its own people write.
    ///
    /// `TimeZone.abbreviation(for:)` on Linux answers "GMT-4"; ICU's specific short names
    /// depend on the locale's region (en_US knows "EDT" but not "WIB", which only id_ID
    /// has), so the name is asked of the locales of the zone's own country (tzdata's
    /// `zone.tab`), English first, and only an all-capital Latin answer is taken.
    static func zoneName(of date: Date, in timeZone: TimeZone) -> String {
        let offset = timeZone.secondsFromGMT(for: date)
        let key = "\(timeZone.identifier)|\(offset)"
        if let known = zoneNames.withLock({ $0[key] }) { return known }
        var name = date.formatted(Date.FormatStyle(timeZone: timeZone).timeZone(.specificName(.short)).locale(english))
        // "GMT" itself is a name (London in winter); "GMT+7" is an offset, worth improving.
        if name.hasPrefix("GMT+") || name.hasPrefix("GMT-"), let country = ZoneCountries.shared[timeZone.identifier] {
            for locale in ZoneCountries.locales(of: country) {
                let candidate = date.formatted(Date.FormatStyle(timeZone: timeZone).timeZone(.specificName(.short)).locale(locale))
                if (2...5).contains(candidate.utf8.count), candidate.utf8.allSatisfy({ (65...90).contains($0) }), !candidate.hasPrefix("GMT") {
                    name = candidate
                    break
                }
            }
        }
        zoneNames.withLock { $0[key] = name }
        return name
    }

    private static let zoneNames = Mutex<[String: String]>([:])

    private static let english = Locale(identifier: "en_US")

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

/// Which country each IANA zone belongs to, from tzdata's `zone.tab` (present wherever
/// Foundation reads zones); empty when the file is missing, and then names fall back to en_US.
enum ZoneCountries {
    static let shared: [String: String] = {
        guard let text = try? String(contentsOfFile: "/usr/share/zoneinfo/zone.tab", encoding: .utf8) else { return [:] }
        var map = [String: String]()
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t")
            if fields.count >= 3 { map[String(fields[2])] = String(fields[0]) }
        }
        return map
    }()

    /// The locales of `country`, English first ("en_ID", then "id_ID", …).
    static func locales(of country: String) -> [Locale] {
        let suffix = "_" + country
        let names = Locale.availableIdentifiers.filter { $0.hasSuffix(suffix) }.sorted()
        return (names.filter { $0.hasPrefix("en_") } + names.filter { !$0.hasPrefix("en_") }).map(Locale.init(identifier:))
    }
}
