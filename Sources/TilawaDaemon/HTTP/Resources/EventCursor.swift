import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore
import TilawaStore

/// A position in an event feed as clients send it: 1 to 18 decimal digits (any such number
/// fits an `Int64`), exactly the `Cursor` schema of `openapi/openapi.yaml`.
struct EventCursor {
    let sequence: Int64

    init?(_ text: String) {
        guard (1...18).contains(text.utf8.count), text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let value = Int64(text) else { return nil }
        sequence = value
    }
}

extension EventCursor {
    /// A feed request's page: `after` (forwards) or `before` (backwards), never both, and
    /// `limit` 1…500 (default 100). Throws the 400 problems `invalid_cursor`, `invalid_limit`.
    static func page(_ request: Request) throws -> (after: Int64?, before: Int64?, limit: Int) {
        let query = request.uri.queryParameters
        func cursor(_ name: String) throws -> Int64? {
            try query.get(name).map { text -> Int64 in
                guard let value = EventCursor(text) else {
                    throw APIProblem.badRequest("invalid_cursor", "The cursor must be a cursor from a previous answer (1 to 18 digits).")
                }
                return value.sequence
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
