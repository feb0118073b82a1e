/// Why a programme file given to `tilawa roster import` cannot be imported (exit 65).
///
/// Only the first problem in file order is reported, so an administrator fixes one line,
/// runs the import again and sees the next one. `message` already names the file and,
/// where there is one, the line; the CLI prints `tilawa: <description>` (DESIGN §3).
public struct RosterError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable snake_case codes; printed in place of `<code>` on stderr.
    public enum Code: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// YAML syntax the parser cannot read (tabs for indentation, an unclosed bracket, a
        /// repeated key) or a file that is not one YAML document.
        case malformedYAML = "malformed_yaml"
        /// CSV that is not RFC 4180 (an unterminated quote, a stray quote), a missing or wrong
        /// header, or a row with the wrong number of fields.
        case malformedCSV = "malformed_csv"
        /// A required field is absent or empty.
        case missingField = "missing_field"
        /// An id is not `[A-Za-z0-9_-]{1,64}`.
        case invalidIdentifier = "invalid_identifier"
        /// The same id appears twice in one file.
        case duplicateID = "duplicate_id"
        /// A student names a coach neither this import nor the database defines.
        case unknownCoach = "unknown_coach"
        /// A student names a level neither this import nor the database defines.
        case unknownLevel = "unknown_level"
        /// A student names a semester neither this import nor the database defines.
        case unknownSemester = "unknown_semester"
        /// A semester starts on a day other than Saturday in the programme time zone.
        case semesterNotSaturday = "semester_not_saturday"
        /// `time_zone` is not an IANA zone name this system knows.
        case invalidTimeZone = "invalid_time_zone"
        /// A level does not define every week of the semester.
        case incompleteCurriculum = "incomplete_curriculum"
        /// A week number is not 1…15 or appears twice in one level.
        case invalidWeek = "invalid_week"
        /// An `ayahs` list that does not read: not `surah:first-last` or `surah:ayah` ranges
        /// separated by `;`, a range that ends before it starts, or an ayah listed twice.
        case invalidAyahs = "invalid_ayahs"
        /// An `ayahs` range names a surah or an ayah that Tanzil's Quran text does not have.
        case unknownAyah = "unknown_ayah"
        /// A value has the wrong type or is out of range (a start that is not a real
        /// `YYYY-MM-DD` date, negative grace days, a list where text belongs, a line break in a name).
        case invalidValue = "invalid_value"
        /// A key the programme file does not define (usually a typo such as `coach:`).
        case unknownField = "unknown_field"
        /// The file is neither `.yaml`/`.yml` nor `.csv`.
        case unsupportedFile = "unsupported_file"
        /// A row would change an enrolment of a semester that has closed (its history is final).
        case semesterClosed = "semester_closed"
        /// Same-gender coaching is on and the row pairs a student and a coach of different genders.
        case genderMismatch = "gender_mismatch"
        /// A row would change the level of an enrolment that already has weekly or
        /// end-of-course recordings (a coach change stays allowed).
        case alreadyPlaced = "already_placed"
        /// Two rows of one student (in different semesters) give different values for one of
        /// the student's own columns (`gender`, `time_zone`); the message names both lines.
        case conflictingRows = "conflicting_rows"
        /// A coach's `photo` is missing, unreadable, too large, or not a JPEG, PNG or WebP image
        /// by its content.
        case invalidPhoto = "invalid_photo"
        /// Two people (students or coaches, in the files or already imported) have one subject.
        case duplicateSubject = "duplicate_subject"
        /// `date_of_birth` is not a real calendar date written `YYYY-MM-DD` (from 1900 on).
        case invalidDateOfBirth = "invalid_date_of_birth"

        /// The snake_case code, so that string interpolation prints `unknown_coach`, not `unknownCoach`.
        public var description: String { rawValue }
    }

    /// What kind of problem this is; stable across releases.
    public let code: Code
    /// The file as the administrator named it on the command line (e.g. `config/students.csv`).
    public let source: String
    /// The 1-based line the problem is on, when there is one.
    public let line: Int?
    /// One line naming the file, the line, the culprit and what to do, e.g.
    /// `config/students.csv line 7: unknown coach "C99" (known: C01, C02, C03)`.
    public let message: String

    /// Builds an error; `detail` is the part after `<source> line <n>: `.
    public init(_ code: Code, source: String, line: Int?, _ detail: String) {
        self.code = code
        self.source = source
        self.line = line
        let place = line.map { "\(source) line \($0)" } ?? source
        self.message = "\(place): \(detail)"
    }

    /// `<code>: <message>`, the text after `tilawa: ` on stderr.
    public var description: String {
        "\(code.rawValue): \(message)"
    }
}
