import Foundation
import GRDB

extension AppDatabase {
    /// The `meta` key of the installation's key for the log's pseudonyms (see `logPseudonymKey`).
    static let logKeyName = "log_pseudonym_key"

    /// Bytes in the key (HMAC-SHA256's block-sized key: 256 bits).
    public static let logKeyLength = 32

    /// The installation's key for the log's pseudonyms (`log.ids: pseudonym`): 32 random bytes,
    /// made the first time it is asked for and kept with the data in `meta`, as 64 hex digits.
    ///
    /// Every node of one database (and `tilawa log-id`) reads the same key, so a student has
    /// one pseudonym in every node's log; a backup carries it, so a restore keeps them. Two
    /// processes making it at once agree: each offers its own with an insert that does nothing
    /// once a key is there, and both return the one that was stored first.
    ///
    /// - Throws: `StoreError.internalInconsistency` when the stored value is not a key.
    public func logPseudonymKey(now: Date) throws -> [UInt8] {
        let stored = try engine.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [Self.logKeyName])
        }
        if let stored { return try Self.logKey(fromHex: stored) }
        let offered = Self.hex(Self.randomLogKey())
        let kept = try engine.write { db -> String? in
            try db.execute(sql: """
                INSERT INTO meta (key, value, updatedAt) VALUES (?, ?, ?)
                ON CONFLICT(key) DO NOTHING
                """, arguments: [Self.logKeyName, offered, now])
            return try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [Self.logKeyName])
        }
        guard let kept else { throw StoreError.internalInconsistency("meta.\(Self.logKeyName) was not kept") }
        return try Self.logKey(fromHex: kept)
    }

    /// 32 bytes from the system's random source (`getrandom` on Linux), which is cryptographically secure.
    static func randomLogKey() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<logKeyLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// The key stored as `text`, or `internalInconsistency` when it is not 64 hex digits.
    static func logKey(fromHex text: String) throws -> [UInt8] {
        let digits = Array(text.utf8)
        guard digits.count == logKeyLength * 2 else {
            throw StoreError.internalInconsistency("meta.\(logKeyName) is not \(logKeyLength * 2) hex digits")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(logKeyLength)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else {
                throw StoreError.internalInconsistency("meta.\(logKeyName) is not \(logKeyLength * 2) hex digits")
            }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
