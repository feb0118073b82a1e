import Foundation
import GRDB
import TilawaCore

/// A Quran Coach.
public struct CoachRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "coach"
    public var id: String
    public var name: String
    public var email: String?
    /// Listed in `program.yaml` as one who places new students (`places: true`). When no
    /// coach is, every coach may place.
    public var placing: Bool
    /// `female` or `male` (same-gender coaching); nil when not given.
    public var gender: String? = nil
    /// A short introduction students see with their coach.
    public var bio: String? = nil
    /// The coach's photo in the state directory (`photos/<sha256>.<ext>`), its media type and
    /// SHA-256 (the ETag); nil without one.
    public var photoPath: String? = nil
    public var photoType: String? = nil
    public var photoSHA256: String? = nil
    /// The identity provider's `sub` for this coach (DESIGN §10); nil when not given.
    public var subject: String? = nil

    /// Creates a record.
    public init(id: String, name: String, email: String?, placing: Bool = false, gender: String? = nil, bio: String? = nil) {
        self.id = id
        self.name = name
        self.email = email
        self.placing = placing
        self.gender = gender
        self.bio = bio
    }
}
