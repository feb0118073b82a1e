import Foundation

/// Token lifetimes as an operator types them: `90s`, `15m`, `1h`, `7d`, or plain seconds.
public enum TokenLifetime {
    /// The lifetimes `tilawa token issue --ttl` accepts: 60 s to 365 days, the range of
    /// `auth.default_token_ttl_seconds`.
    public static let bounds: ClosedRange<TimeInterval> = 60...31_536_000

    /// The seconds `text` stands for: a whole number followed by `s`, `m`, `h` or `d`
    /// (either case) or by nothing (seconds); nil for anything else, including 0 and overflow.
    /// Bounds are the caller's to check (`bounds`).
    public static func parse(_ text: String) -> TimeInterval? {
        var digits = Substring(text)
        var unit = 1
        if let last = digits.last, !last.isNumber {
            switch last.lowercased() {
            case "s": unit = 1
            case "m": unit = 60
            case "h": unit = 3600
            case "d": unit = 86_400
            default: return nil
            }
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let count = Int(digits), count > 0
        else { return nil }
        let (seconds, overflow) = count.multipliedReportingOverflow(by: unit)
        return overflow ? nil : TimeInterval(seconds)
    }
}
