/// Helpers for the text that goes into `RosterError` messages and for checking names.
///
/// TilawaCore keeps its own quoting helper internal; this is the roster's copy of the same
/// rule, because a programme file is untrusted input that ends up on one stderr line.
enum RosterText {
    /// An identity provider's `sub` as Tilawa keeps one: 1–255 bytes, no control characters.
    static func isSubject(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 255 && !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// `input` in double quotes, with control characters replaced by "?" and cut to `limit` characters.
    static func quoted(_ input: String, limit: Int = 80) -> String {
        var out = ""
        for (index, character) in input.enumerated() {
            if index == limit {
                out += "…"
                break
            }
            out.append(hasControl(character) ? "?" : character)
        }
        return "\"\(out)\""
    }

    /// `ids` sorted by bytes and joined with ", ", at most `limit` of them, then "… (N more)".
    static func list<S: Sequence>(_ ids: S, limit: Int = 12) -> String where S.Element == String {
        let sorted = ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let shown = sorted.prefix(limit).map { clean($0) }.joined(separator: ", ")
        return sorted.count > limit ? "\(shown), … (\(sorted.count - limit) more)" : shown
    }

    /// Whether `character` is or contains a control, format or line/paragraph-separator scalar.
    static func hasControl(_ character: Character) -> Bool {
        character.unicodeScalars.contains {
            $0.properties.generalCategory == .control || $0.properties.generalCategory == .format
                || $0 == "\u{2028}" || $0 == "\u{2029}"
        }
    }

    /// Whether `text` is fit for a one-line label (a name, a title, a passage): no line
    /// breaks or other control characters. Format characters are allowed here, because Arabic
    /// names legitimately carry bidirectional marks and zero-width joiners.
    static func isSingleLine(_ text: String) -> Bool {
        !text.unicodeScalars.contains {
            $0.properties.generalCategory == .control || $0 == "\u{2028}" || $0 == "\u{2029}"
        }
    }

    /// `text` without leading and trailing white space (Unicode `White_Space`, line ends included).
    static func trimmed<S: StringProtocol>(_ text: S) -> String {
        let scalars = Array(text.unicodeScalars)
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[first...last])
        return String(view)
    }

    private static func clean(_ input: String) -> String {
        String(input.map { hasControl($0) ? "?" : $0 })
    }
}
