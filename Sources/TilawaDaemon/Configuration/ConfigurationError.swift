/// A configuration value the daemon cannot start with; the CLI prints it and exits 78 (DESIGN §3).
///
/// `description` is one line, `<key>: <message>`, and says where the bad value came from:
/// `http.port: must be an integer from 1 to 65535, got "abc" (from TILAWA_HTTP_PORT)`.
/// `key` is the dotted key (`http.port`); for an unknown environment variable it is the
/// variable's name, and for problems with the file as a whole (missing, not YAML) it is `config`.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The key the problem is about, e.g. `http.port`.
    public let key: String
    /// What is wrong and what is expected, on one line, without the key.
    public let message: String

    /// Creates an error; newlines in `message` are replaced so the description stays one line.
    public init(key: String, message: String) {
        self.key = key
        self.message = Self.oneLine(message)
    }

    /// The stable code the CLI prints before the description (`tilawa: bad_configuration: …`).
    public var code: String { "bad_configuration" }

    /// `<key>: <message>`, one line.
    public var description: String { "\(key): \(message)" }

    /// The key used for problems with the configuration file as a whole.
    static let fileKey = "config"

    /// `input` in double quotes, control characters replaced and cut at 80 characters, so
    /// that a value from the environment or a file cannot break the one-line message.
    static func quoted(_ input: String) -> String {
        var out = ""
        for (index, character) in input.enumerated() {
            if index == 80 {
                out += "…"
                break
            }
            let isControl = character.unicodeScalars.contains {
                $0.properties.generalCategory == .control || $0.properties.generalCategory == .format
                    || $0 == "\u{2028}" || $0 == "\u{2029}"
            }
            out.append(isControl ? "?" : character)
        }
        return "\"\(out)\""
    }

    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingSpaces() }.joined(separator: " ")
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}
