import Foundation
import HTTPTypes
import TilawaCore
import TilawaStore

/// A change to an annotation (`PATCH /v1/annotations/{id}`): the members given; the rest stay.
///
/// Any of `at_seconds` (a number), `kind`, `text` (strings), and `surah` with `ayah` (whole
/// numbers, or both null), nothing else and not nothing: 400 `invalid_body` otherwise; one of
/// `surah` and `ayah` without the other is 422 `surah_and_ayah_together`.
struct AnnotationChange: Decodable, Sendable {
    var atSeconds: Double?
    var kind: String?
    var text: String?
    /// The ayah: absent (unchanged), `.some(nil)` (the moment alone), or a surah and ayah.
    var place: (surah: Int, ayah: Int)?? = nil

    static let shape = "The body must be an object with any of \"at_seconds\" (a number), \"kind\", \"text\" (strings), and \"surah\" with \"ayah\" (whole numbers, or both null)."

    enum CodingKeys: String, CodingKey {
        case surah, ayah, kind, text
        case atSeconds = "at_seconds"
    }

    init(from decoder: any Decoder) throws {
        guard try !decoder.members(within: ["at_seconds", "surah", "ayah", "kind", "text"]).isEmpty else {
            throw DecodingError.notTheShape("an empty change", in: decoder)
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        atSeconds = try container.decodeIfPresent(Double.self, forKey: .atSeconds)
        kind = try container.decodeIfPresent(String.self, forKey: .kind)
        text = try container.decodeIfPresent(String.self, forKey: .text)
        let together = AnnotationRefusal.surahAndAyahTogether
        let apart = APIProblem(.unprocessableContent, code: together.code, detail: together.message)
        switch (container.contains(.surah), container.contains(.ayah)) {
        case (false, false):
            place = nil
        case (true, true):
            if try container.decodeNil(forKey: .surah), try container.decodeNil(forKey: .ayah) {
                place = .some(nil)
            } else if let surah = try? container.decode(Int.self, forKey: .surah), let ayah = try? container.decode(Int.self, forKey: .ayah) {
                place = .some((surah, ayah))
            } else {
                throw apart
            }
        default:
            throw apart
        }
    }

    /// The annotation as it is to be, for the rules of a new one.
    func applied(to stored: AnnotationRecord) -> AnnotationDraft {
        let ayah: (surah: Int?, ayah: Int?) = switch place {
        case .none: (stored.surah, stored.ayah)
        case .some(.none): (nil, nil)
        case let .some(.some(given)): (given.surah, given.ayah)
        }
        return AnnotationDraft(atSeconds: atSeconds ?? stored.atSeconds, surah: ayah.surah, ayah: ayah.ayah,
                               kind: kind ?? stored.kind.rawValue, text: text ?? stored.text)
    }
}
