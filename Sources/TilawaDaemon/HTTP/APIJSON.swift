import Foundation
import TilawaCore
import TilawaStore

/// The JSON conventions of every API body: snake_case members set by hand, RFC 3339 UTC instants.
public enum APIJSON {
    /// An encoder for responses and event payloads.
    public static func encoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}
