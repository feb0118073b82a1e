import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore
import TilawaStore

/// The cursors of one recipient's event feed (a student's, or a coach's), as clients see them:
/// opaque, sealed, and bound to that feed.
///
/// A cursor is `c_` followed by unpadded base64url (RFC 4648 §5) of 25 bytes: a version byte
/// (1), the position hidden (8 bytes) and a seal (16 bytes). The seal is the first 16 bytes
/// of HMAC-SHA256 over the version, the position (8 bytes, big-endian) and the recipient
/// (`student:<id>` or `coach:<id>`, which is not in the cursor), keyed with `EventCursorKey`'s
/// seal key; the position is hidden by XOR with the first 8 bytes of HMAC-SHA256 of the seal
/// under its mask key — a synthetic-IV construction (as AES-SIV, RFC 5297, with HMAC as the
/// PRF): deterministic, so the same position of the same feed always gives the same text, and
/// since every position has its own seal, its own mask. A client can neither read a position
/// nor forge or step through them, and a cursor from one feed is refused (400
/// `invalid_cursor`) on another.
///
/// **The position.** Today it is the outbox's global sequence number (`event.seq`), which
/// orders every recipient's events; clients never see it as a number, so it tells a student
/// nothing about how busy the programme is. Because it is opaque, another storage engine (the
/// PostgreSQL port of DESIGN §13) may use any number that increases within one recipient's
/// feed — a per-recipient sequence — without changing the wire form: such positions take a
/// new version byte, so the server can tell the cursors clients already hold (version 1,
/// global sequence numbers) from the new ones and translate or refuse them.
///
/// **The former form.** Cursors used to be the bare sequence number (1 to 18 digits), and
/// clients stored them: those are still read, on any feed (they carry no recipient), and
/// `before=999999999999999999` still reads from the newest; but every cursor the server
/// sends is the sealed form.
struct EventCursor {
    /// Whose feed.
    enum Recipient {
        case student(String)
        case coach(String)

        /// What the seal binds the position to.
        var label: String {
            switch self {
            case let .student(id): "student:\(id)"
            case let .coach(id): "coach:\(id)"
            }
        }
    }

    static let prefix = "c_"
    static let version: UInt8 = 1
    static let tagLength = 16
    /// The sealed form's bytes: version, position, tag.
    static let byteCount = 1 + 8 + tagLength

    let key: EventCursorKey
    let recipient: Recipient

    /// The cursor of `position` in this feed.
    func text(for position: Int64) -> String {
        let plain = withUnsafeBytes(of: UInt64(bitPattern: position).bigEndian, Array.init)
        let seal = seal(plain)
        let bytes = [Self.version] + zip(plain, mask(seal)).map { $0 ^ $1 } + seal
        return Self.prefix + Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The position `text` names in this feed: a sealed cursor of this feed, or the former
    /// bare digits (1 to 18); nil for anything else (another feed's, altered, made up).
    func position(of text: String) -> Int64? {
        if (1...18).contains(text.utf8.count), text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            return Int64(text)
        }
        guard text.hasPrefix(Self.prefix), text.utf8.count <= 64,
              let data = TokenHeader.base64URLDecoded(text.dropFirst(Self.prefix.count)), data.count == Self.byteCount else { return nil }
        let bytes = Array(data)
        guard bytes[0] == Self.version else { return nil }
        let seal = Array(bytes[9...])
        let plain = zip(bytes[1..<9], mask(seal)).map { $0 ^ $1 }
        // Compared in full whatever the first difference, as any MAC check should be.
        guard zip(self.seal(plain), seal).reduce(UInt8(0), { $0 | ($1.0 ^ $1.1) }) == 0 else { return nil }
        let position = Int64(bitPattern: plain.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        return position >= 0 ? position : nil
    }

    /// The truncated HMAC over the version, `plain` (the position) and the recipient.
    private func seal(_ plain: [UInt8]) -> [UInt8] {
        var authenticator = HMAC<SHA256>(key: key.seal)
        authenticator.update(data: [Self.version])
        authenticator.update(data: plain)
        authenticator.update(data: Array(recipient.label.utf8))
        return Array(Array(authenticator.finalize()).prefix(Self.tagLength))
    }

    /// The 8 bytes the position is hidden under: a PRF of its seal.
    private func mask(_ seal: [UInt8]) -> [UInt8] {
        Array(Array(HMAC<SHA256>.authenticationCode(for: seal, using: key.mask)).prefix(8))
    }

    /// A feed request's page: `after` (forwards) or `before` (backwards), never both, and
    /// `limit` 1…500 (default 100). `before` without a cursor (`?before=`) reads from the
    /// newest, so a client opening the feed newest first needs no made-up cursor (the former
    /// `999999999999999999` does the same). Throws the 400 problems `invalid_cursor`, `invalid_limit`.
    func page(_ request: Request) throws -> (after: Int64?, before: Int64?, limit: Int) {
        let query = request.uri.queryParameters
        func cursor(_ name: String) throws -> Int64? {
            try query.get(name).map { text -> Int64 in
                if name == "before", text.isEmpty { return Int64.max }
                guard let value = position(of: text) else {
                    throw APIProblem.badRequest("invalid_cursor", "The cursor must be one this feed gave in a previous answer.")
                }
                return value
            }
        }
        let after = try cursor("after")
        let before = try cursor("before")
        guard after == nil || before == nil else {
            throw APIProblem.badRequest("invalid_cursor", "Page forwards with after or backwards with before, not both.")
        }
        let limit = try query.get("limit").map { text -> Int in
            guard let value = Int(text), (1...500).contains(value) else { throw APIProblem.badRequest("invalid_limit", "The limit must be 1 to 500.") }
            return value
        } ?? 100
        return (after, before, limit)
    }
}
