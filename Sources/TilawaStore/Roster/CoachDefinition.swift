import TilawaCore

/// One Quran Coach from `config/program.yaml`.
public struct CoachDefinition: Sendable, Equatable {
    /// The coach id (`coach_id` in `config/students.csv`, the coach's drop-folder name).
    public let id: Identifier
    /// The name students see, e.g. "Ustadha Maryam Haddad"; one line, never empty.
    public let name: String
    /// A contact address, if the file gives one; checked only for the shape `local@domain`.
    public let email: String?
    /// `places: true`: the coach places new students (listens to placement assessments).
    public let places: Bool
    /// `gender`: `female` or `male`, for same-gender coaching; nil when not given.
    public let gender: String?
    /// `bio`: a short introduction students see with their coach; nil when not given.
    public let bio: String?
    /// `photo`: an image file beside the programme file (a relative path inside its
    /// directory), checked and copied at import; nil when not given.
    public let photo: String?
    /// The line `photo` is on, for messages about the file.
    public let photoLine: Int?
    /// `subject`: the identity provider's `sub` for this coach; nil when not given.
    public let subject: String?

    /// A coach as read from the file.
    public init(id: Identifier, name: String, email: String?, places: Bool = false, gender: String? = nil, bio: String? = nil,
                photo: String? = nil, photoLine: Int? = nil, subject: String? = nil) {
        self.subject = subject
        self.photo = photo
        self.photoLine = photoLine
        self.id = id
        self.name = name
        self.email = email
        self.places = places
        self.gender = gender
        self.bio = bio
    }
}
