import Foundation

/// Makes ids that sort by creation time and are safe in paths and URLs.
///
/// A prefix, then 48 bits of milliseconds and 80 random bits in Crockford base32 (as a
/// ULID): `sub_01JD3…`. Time order keeps related rows together in indexes and logs.
public enum IdentifierGenerator {
    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    /// A new id with `prefix` (letters only, e.g. `sub`, `fb`, `evt`).
    public static func make(_ prefix: String, now: Date = Date()) -> String {
        let millis = UInt64(max(0, now.timeIntervalSince1970 * 1000))
        var characters: [Character] = []
        for shift in stride(from: 45, through: 0, by: -5) {
            characters.append(alphabet[Int((millis >> UInt64(shift)) & 31)])
        }
        var random = SystemRandomNumberGenerator()
        for _ in 0..<16 { characters.append(alphabet[Int(random.next() & 31)]) }
        return prefix + "_" + String(characters)
    }
}
