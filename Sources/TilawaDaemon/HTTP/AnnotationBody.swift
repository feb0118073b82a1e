import Foundation
import TilawaCore

/// The JSON body of `POST /v1/submissions/{id}/annotations`: exactly `at_seconds`, `kind`,
/// `text` and optionally `surah` and `ayah`, of their types; 400 `invalid_body` otherwise. The
/// values' rules are `AnnotationDraft`'s (422).
struct AnnotationBody: Decodable {
    var atSeconds: Double
    var surah: Int?
    var ayah: Int?
    var kind: String
    var text: String

    static let shape = "The body must be {\"at_seconds\": 12.5, \"kind\": \"tajweed\", \"text\": \"…\"} with optional \"surah\" and \"ayah\" (integers)."

    enum CodingKeys: String, CodingKey {
        case surah, ayah, kind, text
        case atSeconds = "at_seconds"
    }

    init(from decoder: any Decoder) throws {
        try decoder.members(within: ["at_seconds", "surah", "ayah", "kind", "text"])
        let container = try decoder.container(keyedBy: CodingKeys.self)
        atSeconds = try container.decode(Double.self, forKey: .atSeconds)
        surah = try container.decodeIfPresent(Int.self, forKey: .surah)
        ayah = try container.decodeIfPresent(Int.self, forKey: .ayah)
        kind = try container.decode(String.self, forKey: .kind)
        text = try container.decode(String.self, forKey: .text)
    }
}
