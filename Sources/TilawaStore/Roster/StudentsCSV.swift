import TilawaCore

/// Reads `config/students.csv`: the header `student_id,name,level,coach_id,semester_id`, then
/// one enrolment per row (a student may have a row per semester; level and coach empty for
/// one awaiting placement).
public enum StudentsCSV {
    /// The header the file must start with (after an optional byte-order mark and blank lines).
    public static let header = ["student_id", "name", "level", "coach_id", "semester_id"]
    /// Columns a file may add after the five, in any order (DESIGN §14).
    public static let optionalColumns = ["owes_from_week", "gender", "time_zone", "subject", "date_of_birth"]

    /// Parses the rows of `config/students.csv`, checking each field's shape.
    ///
    /// Accepts RFC 4180 CSV with a byte-order mark, CRLF line ends, spaces around fields,
    /// quoted fields holding commas or doubled quotes, and blank lines; every field is
    /// trimmed. A file holding only the header yields no rows. Duplicates and unknown
    /// references are checked by `RosterValidator.validate`, not here.
    /// - Parameters:
    ///   - text: the whole file, UTF-8 decoded.
    ///   - source: the file name as the administrator gave it, used in messages.
    /// - Throws: the first problem in file order: `malformed_csv` (no or wrong header, a
    ///   wrong field count, bad quoting), `missing_field` (an empty field),
    ///   `invalid_identifier` (an id that is not `[A-Za-z0-9_-]{1,64}`), `invalid_value`
    ///   (a name with a line break or control character), `invalid_date_of_birth` (a
    ///   `date_of_birth` that is not a real `YYYY-MM-DD` date).
    public static func parse(_ text: String, source: String) throws(RosterError) -> [StudentRow] {
        let (records, syntaxProblem) = CSVRecordReader(source: source).records(text)
        let expected = header.joined(separator: ",")
        guard let first = records.first else {
            if let syntaxProblem { throw syntaxProblem }
            throw RosterError(.malformedCSV, source: source, line: nil, "the file is empty; its first line must be the header \(expected)")
        }
        let found = first.fields.map { RosterText.trimmed($0) }
        if found.count > header.count, Array(found.prefix(header.count)) == header {
            let extra = found.dropFirst(header.count)
            if let unknown = extra.first(where: { !optionalColumns.contains($0) }) {
                throw RosterError(.malformedCSV, source: source, line: first.line,
                                  "unknown column \(RosterText.quoted(unknown)); after \(expected) a file may add \(optionalColumns.joined(separator: ", "))")
            }
            if Set(extra).count != extra.count {
                throw RosterError(.malformedCSV, source: source, line: first.line, "a column is named twice in the header")
            }
        } else if found != header {
            let looksLikeData = !found.contains { name in header.contains(name.lowercased()) }
            let detail = looksLikeData
                ? "the header is missing; the first line must be \(expected)"
                : "wrong header \(RosterText.quoted(found.joined(separator: ","))); it must be exactly \(expected)"
            throw RosterError(.malformedCSV, source: source, line: first.line, detail)
        }
        var rows = [StudentRow]()
        for record in records.dropFirst() {
            rows.append(try row(record, columns: found, source: source))
        }
        // Every row before it was fine, so the syntax problem is the first one in the file.
        if let syntaxProblem { throw syntaxProblem }
        return rows
    }

    private static func row(_ record: CSVRecordReader.Record, columns: [String], source: String) throws(RosterError) -> StudentRow {
        let line = record.line
        guard record.fields.count == columns.count else {
            let hint = record.fields.count > columns.count ? "; a name containing a comma must be in double quotes" : ""
            throw RosterError(
                .malformedCSV, source: source, line: line,
                "expected \(columns.count) fields (\(columns.joined(separator: ","))), found \(record.fields.count)\(hint)"
            )
        }
        let fields = record.fields.map { RosterText.trimmed($0) }
        // Level and coach are empty together for a student awaiting placement.
        let placementColumns: Set = ["level", "coach_id"]
        for (column, value) in zip(header, fields) where value.isEmpty && !placementColumns.contains(column) {
            throw RosterError(.missingField, source: source, line: line, "\(column) is empty; every column needs a value")
        }
        if fields[2].isEmpty != fields[3].isEmpty {
            let empty = fields[2].isEmpty ? "level" : "coach_id"
            throw RosterError(
                .missingField, source: source, line: line,
                "\(empty) is empty; give both level and coach_id, or leave both empty for a student awaiting placement")
        }
        func identifier(_ value: String, _ what: String) throws(RosterError) -> Identifier {
            try Identifier(rosterField: value, what: what, source: source, line: line, place: "")
        }
        let id = try identifier(fields[0], "student id")
        let name = fields[1]
        guard RosterText.isSingleLine(name) else {
            throw RosterError(
                .invalidValue, source: source, line: line,
                "the name of student \(id) holds a line break or control character; write it on one line"
            )
        }
        let level = fields[2].isEmpty ? nil : try identifier(fields[2], "level").rawValue
        let coach = fields[3].isEmpty ? nil : try identifier(fields[3], "coach id")
        let semester = try identifier(fields[4], "semester id")
        var owesFromWeek: Int?
        if let index = columns.firstIndex(of: "owes_from_week"), !fields[index].isEmpty {
            guard let week = Int(fields[index]), (1...15).contains(week) else {
                throw RosterError(.invalidValue, source: source, line: line,
                                  "owes_from_week of student \(id) is \(RosterText.quoted(fields[index])); it must be a week from 1 to 15, or empty")
            }
            owesFromWeek = week
        }
        var gender: String?
        if let index = columns.firstIndex(of: "gender"), !fields[index].isEmpty {
            guard let value = Gender.normalised(fields[index]) else {
                throw RosterError(.invalidValue, source: source, line: line,
                                  "gender of student \(id) is \(RosterText.quoted(fields[index])); it must be female or male, or empty")
            }
            gender = value
        }
        var timeZone: String?
        if let index = columns.firstIndex(of: "time_zone"), !fields[index].isEmpty {
            guard IANAZone.zone(fields[index]) != nil else {
                throw RosterError(.invalidTimeZone, source: source, line: line,
                                  "time_zone of student \(id) is \(RosterText.quoted(fields[index])); it must be an IANA zone name such as Asia/Dubai, or empty")
            }
            timeZone = fields[index]
        }
        var subject: String?
        if let index = columns.firstIndex(of: "subject"), !fields[index].isEmpty {
            guard RosterText.isSubject(fields[index]) else {
                throw RosterError(.invalidValue, source: source, line: line,
                                  "subject of student \(id) must be one line of at most 255 characters (the identity provider's sub)")
            }
            subject = fields[index]
        }
        var dateOfBirth: LocalDate?
        if let index = columns.firstIndex(of: "date_of_birth"), !fields[index].isEmpty {
            guard let date = LocalDate(fields[index]), date.isReal, date.year >= 1900 else {
                throw RosterError(.invalidDateOfBirth, source: source, line: line,
                                  "date_of_birth of student \(id) is \(RosterText.quoted(fields[index])); it must be a real date written YYYY-MM-DD (e.g. 2011-04-23), or empty")
            }
            dateOfBirth = date
        }
        return StudentRow(line: line, id: id, name: name, level: level, coachID: coach, semesterID: semester, owesFromWeek: owesFromWeek,
                          gender: gender, timeZone: timeZone, subject: subject, dateOfBirth: dateOfBirth)
    }
}
