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
        // Members are snake_case (`received_at`): property names convert on their own; a
        // `CodingKeys` enum is written only where a name does not convert (`last_24h`) or an
        // `encode(to:)` must write nulls. Dictionary keys (coach ids, reason codes) are kept.
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return encoder
    }
}
