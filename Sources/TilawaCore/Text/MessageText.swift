/// Helpers for putting untrusted input into one-line human messages.
enum MessageText {
    /// `input` in double quotes, with control characters replaced and long input cut.
    ///
    /// Messages go to stderr as one line (DESIGN §3) and into reason files that a coach
    /// reads, so a newline or a 10 kB path from a request must not reach them verbatim.
    static func quoted(_ input: String, limit: Int = 80) -> String {
        "\"\(clean(input, limit: limit))\""
    }

    /// `input` with control characters replaced by "?" and cut to `limit` characters.
    static func clean(_ input: String, limit: Int = 80) -> String {
        var out = ""
        for (index, character) in input.enumerated() {
            if index == limit {
                out += "…"
                break
            }
            let isControl = character.unicodeScalars.contains {
                $0.properties.generalCategory == .control || $0.properties.generalCategory == .format
                    || $0 == "\u{2028}" || $0 == "\u{2029}"
            }
            out.append(isControl ? "?" : character)
        }
        return out
    }
}
