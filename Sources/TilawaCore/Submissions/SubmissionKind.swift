/// What a submission is for: a weekly passage, the end-of-course assessment, or placement.
///
/// Raw values are the stable codes used in JSON, the database and the CLI (DESIGN §4 `kind`).
public enum SubmissionKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// A recording for one of the semester's weeks.
    case week
    /// The end-of-course assessment; needs enough distinct weeks first (DESIGN §1).
    case eoc
    /// The placement assessment; allowed any time and never uses an attempt (DESIGN §1).
    case assessment
}
