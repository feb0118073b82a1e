import TilawaCore

/// One student from `config/students.csv`, fields trimmed and ids validated.
///
/// References (`level`, `coachID`, `semesterID`) are only well formed here; whether they
/// exist is `RosterValidator`'s question.
public struct StudentRow: Sendable, Equatable {
    /// The 1-based line the row starts on, for messages.
    public let line: Int
    /// `student_id`.
    public let id: Identifier
    /// `name`, as written (UTF-8, Arabic script welcome); one line, never empty.
    public let name: String
    /// `level`: a level id from the programme file, `[A-Za-z0-9_-]{1,64}`; nil (with
    /// `coachID`) for a student awaiting placement.
    public let level: String?
    /// `coach_id`: the student's assigned coach; nil while awaiting placement.
    public let coachID: Identifier?
    /// `semester_id`: the semester the student is enrolled in.
    public let semesterID: Identifier
    /// The optional `owes_from_week` column (1–15): the first week the enrolment owes; nil
    /// when the file has no such column or the cell is empty (a new enrolment owes from week 1,
    /// an existing one keeps what it owes).
    public let owesFromWeek: Int?
    /// The optional `gender` column: `female` or `male`; nil when absent or empty (the
    /// stored value is kept).
    public let gender: String?
    /// The optional `time_zone` column: an IANA zone name; nil when absent or empty (the
    /// stored value is kept; a zone the student set themselves is never overwritten).
    public let timeZone: String?
    /// The optional `subject` column: the identity provider's `sub` (≤ 255 characters, one
    /// line); nil when absent or empty (the stored value is kept).
    public let subject: String?
    /// The optional `date_of_birth` column (`YYYY-MM-DD`, a real date): whether the student is a
    /// minor, whose consent to the recording policy is a guardian's (DESIGN §16); nil when absent
    /// or empty (the stored value is kept).
    public let dateOfBirth: LocalDate?

    /// A row as read from the file.
    public init(line: Int, id: Identifier, name: String, level: String?, coachID: Identifier?, semesterID: Identifier,
                owesFromWeek: Int? = nil, gender: String? = nil, timeZone: String? = nil, subject: String? = nil,
                dateOfBirth: LocalDate? = nil) {
        self.dateOfBirth = dateOfBirth
        self.subject = subject
        self.timeZone = timeZone
        self.owesFromWeek = owesFromWeek
        self.gender = gender
        self.line = line
        self.id = id
        self.name = name
        self.level = level
        self.coachID = coachID
        self.semesterID = semesterID
    }
}
