import Yams

/// Turns YAML text into Yams' node tree, mapping syntax errors to `malformed_yaml` with a line.
///
/// The node tree (rather than `YAMLDecoder`) is what the roster reads, because every node
/// keeps its line (`Mark`) and its text as written: `id: 0012` stays "0012" and
/// `start: 2026-09-05` stays a date string instead of becoming an instant at UTC midnight.
enum YAMLDocument {
    /// The single document's root node, or nil for a file with no content.
    static func compose(_ text: String, source: String) throws(RosterError) -> Node? {
        // With the encoding set to UTF-8, libyaml reads a byte-order mark as content; drop it
        // (it is not a line, so line numbers stay right).
        let text = text.unicodeScalars.first == "\u{FEFF}" ? String(text.unicodeScalars.dropFirst()) : text
        do {
            return try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw malformed(error, text: text, source: source)
        } catch {
            throw RosterError(.malformedYAML, source: source, line: nil, "not readable as YAML: \(firstLine(of: "\(error)"))")
        }
    }

    private static func malformed(_ error: YamlError, text: String, source: String) -> RosterError {
        switch error {
        case let .scanner(context, problem, mark, _),
             let .parser(context, problem, mark, _),
             let .composer(context, problem, mark, _):
            var detail = "YAML syntax: \(problem)"
            var lineNumber = mark.line
            if let context {
                if line(mark.line, of: text).allSatisfy(\.isWhitespace) {
                    // Noticed only at a blank line or the end of the file (an unclosed bracket or
                    // quote): the construct's own line is where the administrator has to look.
                    lineNumber = context.mark.line
                    detail += ", \(context.text) that is never closed"
                } else {
                    let start = context.mark.line == mark.line ? "" : " that starts on line \(context.mark.line)"
                    detail += " (column \(mark.column)), \(context.text)\(start)"
                }
            } else {
                detail += " (column \(mark.column))"
            }
            if line(lineNumber, of: text).contains("\t") {
                // libyaml's wording ("cannot start any token") does not say the tab is the culprit.
                detail += "; this line has a tab character: indent YAML with spaces only"
            }
            return RosterError(.malformedYAML, source: source, line: lineNumber, detail)
        case let .reader(problem, offset, value, _):
            let lineNumber = offset.map { lineNumberOf(characterOffset: $0, in: text) }
            let code = value >= 0 ? " (character U+\(String(value, radix: 16, uppercase: true)))" : ""
            return RosterError(.malformedYAML, source: source, line: lineNumber, "YAML syntax: \(problem)\(code)")
        case let .duplicatedKeysInMapping(duplicates, context):
            let keys = duplicates.map { RosterText.quoted($0) }.joined(separator: ", ")
            return RosterError(
                .malformedYAML, source: source, line: context.mark.line,
                "key \(keys) appears more than once in the same mapping; keep one"
            )
        default:
            return RosterError(.malformedYAML, source: source, line: nil, "not readable as YAML: \(firstLine(of: error.description))")
        }
    }

    /// The 1-based line number of the `offset`-th character.
    private static func lineNumberOf(characterOffset offset: Int, in text: String) -> Int {
        // Count the way libyaml does: CRLF, LF and CR each end one line; Swift treats "\r\n" as one Character.
        1 + text.prefix(offset).reduce(0) { count, character in
            character == "\n" || character == "\r\n" || character == "\r" ? count + 1 : count
        }
    }

    /// The text of 1-based line `number` (empty if there is none).
    private static func line(_ number: Int, of text: String) -> Substring {
        var current = 1
        var start = text.startIndex
        var index = text.startIndex
        while index < text.endIndex {
            if text[index].isNewline {
                if current == number { return text[start..<index] }
                current += 1
                start = text.index(after: index)
            }
            index = text.index(after: index)
        }
        return current == number ? text[start...] : ""
    }

    private static func firstLine(of text: String) -> String {
        text.split(whereSeparator: \.isNewline).first.map { String($0) } ?? text
    }
}
