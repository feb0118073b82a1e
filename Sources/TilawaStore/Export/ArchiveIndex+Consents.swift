import Foundation

extension ArchiveIndex {
    /// One consent to the recording policy as `index.json` lists it: what was agreed, by whom,
    /// when, and when it stopped being current (absent values are `null`).
    struct Consent: Encodable {
        var version: String
        var givenBy: String
        var guardianName: String?
        var givenAt: Date
        var withdrawnAt: Date?

        init(_ record: ConsentRecord) {
            version = record.version
            givenBy = record.givenBy.rawValue
            guardianName = record.guardianName
            givenAt = record.givenAt
            withdrawnAt = record.withdrawnAt
        }

        enum CodingKeys: String, CodingKey {
            case version, givenBy, guardianName, givenAt, withdrawnAt
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(version, forKey: .version)
            try container.encode(givenBy, forKey: .givenBy)
            try container.encode(guardianName, forKey: .guardianName)
            try container.encode(givenAt, forKey: .givenAt)
            try container.encode(withdrawnAt, forKey: .withdrawnAt)
        }
    }
}
