/// Splits CSV text into records (RFC 4180), remembering the line each record starts on.
///
/// Tolerant where spreadsheets and editors differ: a leading byte-order mark, CRLF, LF or
/// CR line ends, spaces and tabs around fields (also around a quoted field), blank lines.
/// Strict where a mistake would shift columns: an unterminated quote, text after a closing
/// quote, or a quote inside an unquoted field is `malformed_csv`. A quoted field may span
/// lines; its record keeps the line it starts on.
struct CSVRecordReader {
    /// One record: its fields as written (unquoted, doubled quotes undone; spaces around
    /// an unquoted field trimmed) and the 1-based line it starts on.
    struct Record: Equatable {
        let line: Int
        let fields: [String]
    }

    let source: String

    /// The records of `text` up to the first syntax problem, blank lines left out.
    ///
    /// The problem is returned rather than thrown so that the caller can report an earlier
    /// row's problem first: the report is the first problem in file order.
    func records(_ text: String) -> (records: [Record], problem: RosterError?) {
        var records = [Record]()
        do throws(RosterError) {
            try read(text) { records.append($0) }
            return (records, nil)
        } catch {
            return (records, error)
        }
    }

    private func read(_ text: String, _ emit: (Record) -> Void) throws(RosterError) {
        var scalars = Array(text.unicodeScalars)
        if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
        var fields = [String]()
        var field = String.UnicodeScalarView()
        var wasQuoted = false
        var line = 1
        var recordLine = 1
        var index = 0

        func endRecord() {
            fields.append(String(field))
            // A line holding nothing, or only spaces, is blank, not a record with one empty field.
            let isBlank = fields.count == 1 && fields[0].isEmpty && !wasQuoted
            if !isBlank { emit(Record(line: recordLine, fields: fields)) }
            fields = []
            field = String.UnicodeScalarView()
            wasQuoted = false
        }

        func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\t" }

        /// Steps over one line end at `index` (CRLF counts once) and counts the line.
        func skipLineEnd() {
            if scalars[index] == "\r", index + 1 < scalars.count, scalars[index + 1] == "\n" { index += 1 }
            index += 1
            line += 1
        }

        while true {
            // Start of a field: skip leading spaces.
            while index < scalars.count, isSpace(scalars[index]) { index += 1 }
            if index < scalars.count, scalars[index] == "\"" {
                wasQuoted = true
                let openedOn = line
                index += 1
                while true {
                    guard index < scalars.count else {
                        throw RosterError(
                            .malformedCSV, source: source, line: openedOn,
                            "a quoted field opened on this line is never closed; add the closing double quote (\")"
                        )
                    }
                    let scalar = scalars[index]
                    if scalar == "\"" {
                        if index + 1 < scalars.count, scalars[index + 1] == "\"" {
                            field.append("\"")
                            index += 2
                            continue
                        }
                        index += 1
                        break
                    }
                    if scalar == "\r" || scalar == "\n" {
                        field.append(contentsOf: scalar == "\r" && index + 1 < scalars.count && scalars[index + 1] == "\n" ? ["\r", "\n"] : [scalar])
                        skipLineEnd()
                        continue
                    }
                    field.append(scalar)
                    index += 1
                }
                while index < scalars.count, isSpace(scalars[index]) { index += 1 }
                if index < scalars.count, scalars[index] != ",", scalars[index] != "\r", scalars[index] != "\n" {
                    throw RosterError(
                        .malformedCSV, source: source, line: line,
                        "text after a closing quote; inside a quoted field write a double quote as two (\"\")"
                    )
                }
            } else {
                var trailingSpaces = 0
                while index < scalars.count, scalars[index] != ",", scalars[index] != "\r", scalars[index] != "\n" {
                    let scalar = scalars[index]
                    if scalar == "\"" {
                        throw RosterError(
                            .malformedCSV, source: source, line: line,
                            "a double quote inside an unquoted field; put the whole field in double quotes and write the inner quote as two (\"\")"
                        )
                    }
                    trailingSpaces = isSpace(scalar) ? trailingSpaces + 1 : 0
                    field.append(scalar)
                    index += 1
                }
                if trailingSpaces > 0 { field.removeLast(trailingSpaces) }
            }
            // End of a field: a comma, a line end, or the end of the text.
            guard index < scalars.count else {
                endRecord()
                return
            }
            if scalars[index] == "," {
                fields.append(String(field))
                field = String.UnicodeScalarView()
                wasQuoted = false
                index += 1
            } else {
                skipLineEnd()
                endRecord()
                recordLine = line
            }
        }
    }
}
