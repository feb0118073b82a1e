import Foundation

/// IANA time-zone names, the only ones Tilawa accepts from configuration, rosters and students.
public enum IANAZone {
    /// The zone named `identifier` if it is an IANA name: abbreviations such as `EST` or
    /// `GMT+5`, which Foundation also accepts, are refused because they have no DST rules.
    public static func zone(_ identifier: String) -> TimeZone? {
        guard identifier.utf8.count <= 64, let zone = TimeZone(identifier: identifier) else { return nil }
        let isIANA = TimeZone.knownTimeZoneIdentifiers.contains(identifier)
            || identifier == "UTC" || identifier.hasPrefix("Etc/")
        return isIANA ? zone : nil
    }
}
