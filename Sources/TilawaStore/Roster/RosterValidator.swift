import TilawaCore

/// Checks the rows of `config/students.csv` against each other and against what is known.
public enum RosterValidator {
    /// Refuses the first row, in file order, that repeats an earlier student id in the same
    /// semester or names a
    /// level, coach or semester that is not known (checked in that column order).
    ///
    /// The caller builds the known sets as the union of the ids in this import's programme
    /// file and those already in the database, so a students file may be imported on its own
    /// once the programme is in. Comparison is exact: ids are case-sensitive.
    /// - Parameters:
    ///   - students: rows from `StudentsCSV.parse`, in file order.
    ///   - coaches: known coach ids.
    ///   - levels: known level ids.
    ///   - semesters: known semester ids.
    ///   - source: the students file name as given, used in messages.
    /// Two rows of one student in different semesters must agree on the student's own
    /// columns (`gender`, `time_zone`, `date_of_birth`) where both give one.
    /// - Throws: `duplicate_id` (both lines in the message), `conflicting_rows` (both lines),
    ///   `unknown_level`,
    ///   `unknown_coach`, `unknown_semester` (the message lists the known ids).
    public static func validate(
        students: [StudentRow],
        coaches: Set<String>,
        levels: Set<String>,
        semesters: Set<String>,
        source: String
    ) throws(RosterError) {
        var firstLine = [String: Int]()
        var ownColumns = [String: [String: StudentRow]]()
        var subjects = [String: StudentRow]()
        for row in students {
            if let subject = row.subject {
                if let other = subjects[subject], other.id != row.id {
                    throw RosterError(
                        .duplicateSubject, source: source, line: row.line,
                        "students \(RosterText.quoted(other.id.rawValue)) (line \(other.line)) and \(RosterText.quoted(row.id.rawValue)) (line \(row.line)) have the same subject; each person signs in as themselves")
                }
                if let other = subjects[subject], other.id == row.id {} else { subjects[subject] = row }
                if let earlier = students.first(where: { $0.id == row.id && $0.subject != nil && $0.subject != subject && $0.line < row.line }) {
                    throw RosterError(
                        .conflictingRows, source: source, line: row.line,
                        "student \(RosterText.quoted(row.id.rawValue)) has another subject on line \(earlier.line) than on line \(row.line); a student's subject is one value")
                }
            }
            // The first row giving each of the student's own columns, by column name.
            var own = ownColumns[row.id.rawValue] ?? [:]
            for column in ["gender", "time_zone", "date_of_birth"] {
                guard let value = Self.ownColumn(column, of: row) else { continue }
                guard let earlier = own[column] else {
                    own[column] = row
                    continue
                }
                if let before = Self.ownColumn(column, of: earlier), before != value {
                    throw RosterError(
                        .conflictingRows, source: source, line: row.line,
                        "student \(RosterText.quoted(row.id.rawValue)) has \(column) \(RosterText.quoted(before)) on line \(earlier.line) and \(RosterText.quoted(value)) on line \(row.line); a student's \(column) is one value, so give the same on every row or leave all but one empty")
                }
            }
            ownColumns[row.id.rawValue] = own
            let key = row.id.rawValue + "\u{0}" + row.semesterID.rawValue
            if let earlier = firstLine[key] {
                throw RosterError(
                    .duplicateID, source: source, line: row.line,
                    "duplicate student id \(RosterText.quoted(row.id.rawValue)) in semester \(RosterText.quoted(row.semesterID.rawValue)) on lines \(earlier) and \(row.line); each student appears once per semester"
                )
            }
            firstLine[key] = row.line
            if let level = row.level {
                try check(level, in: levels, .unknownLevel, "level", "levels", row: row, source: source)
            }
            if let coach = row.coachID {
                try check(coach.rawValue, in: coaches, .unknownCoach, "coach", "coaches", row: row, source: source)
            }
            try check(row.semesterID.rawValue, in: semesters, .unknownSemester, "semester", "semesters", row: row, source: source)
        }
    }

    /// The value a row gives one of the student's own columns, nil when its cell is empty.
    private static func ownColumn(_ column: String, of row: StudentRow) -> String? {
        switch column {
        case "gender": row.gender
        case "time_zone": row.timeZone
        case "date_of_birth": row.dateOfBirth?.description
        default: nil
        }
    }

    private static func check(
        _ id: String,
        in known: Set<String>,
        _ code: RosterError.Code,
        _ what: String,
        _ plural: String,
        row: StudentRow,
        source: String
    ) throws(RosterError) {
        guard !known.contains(id) else { return }
        let hint = known.isEmpty
            ? "no \(plural) are known yet; import the programme file (config/program.yaml) first or in the same command"
            : "known: \(RosterText.list(known))"
        throw RosterError(code, source: source, line: row.line, "unknown \(what) \(RosterText.quoted(id)) for student \(row.id) (\(hint))")
    }
}
