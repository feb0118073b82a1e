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
