import TilawaCore
import Yams

/// One YAML mapping of the programme file with its path and line, and typed access to its values.
///
/// Every accessor throws a `RosterError` that names the path (`semesters[1].start`) and the
/// line of the value (or of the mapping, when the key is missing). Values are read as the
/// text written in the file, never through YAML's type guesses.
struct YAMLMapping {
    /// The path of this mapping from the root, e.g. `levels[0].weeks[3]`; "" for the root.
    let path: String
    /// The line the mapping starts on.
    let line: Int?
    let source: String
    private let entries: [(key: String, keyLine: Int?, value: Node)]

    /// Reads `node` as a mapping whose keys are text.
    ///
    /// - Throws: `invalid_value` if `node` is a scalar or a list.
    init(_ node: Node, path: String, source: String) throws(RosterError) {
        self.path = path
        self.line = node.mark?.line
        self.source = source
        guard case let .mapping(mapping) = node else {
            throw RosterError(
                .invalidValue, source: source, line: node.mark?.line,
                "\(Self.label(path)) must be a mapping of keys to values, not \(Self.kind(of: node))"
            )
        }
        entries = mapping.map { pair in
            (key: pair.key.scalar?.string ?? "\(pair.key)", keyLine: pair.key.mark?.line, value: pair.value)
        }
    }

    /// `path.key`, or `key` at the root.
    func path(_ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    /// Whether `key` is present with a non-null value.
    func has(_ key: String) -> Bool {
        value(key) != nil
    }

    /// The line of `key`'s value, else of this mapping.
    func line(of key: String) -> Int? {
        value(key)?.mark?.line ?? line
    }

    /// Refuses the first key (in file order) that is not in `allowed`.
    ///
    /// - Throws: `unknown_field`.
    func checkKeys(allowed: [String]) throws(RosterError) {
        for entry in entries where !allowed.contains(entry.key) {
            throw RosterError(
                .unknownField, source: source, line: entry.keyLine ?? line,
                "unknown key \(RosterText.quoted(entry.key)) in \(Self.label(path)); expected \(allowed.joined(separator: ", "))"
            )
        }
    }

    /// `key`'s value; nil when the key is absent or its value is null (`~`, `null`, nothing).
    func value(_ key: String) -> Node? {
        guard let node = entries.first(where: { $0.key == key })?.value else { return nil }
        if case let .scalar(scalar) = node, scalar.style == .plain, Self.nullWords.contains(scalar.string) {
            return nil
        }
        return node
    }

    /// `key`'s value as one line of text, trimmed; nil if absent, null or blank and not `required`.
    ///
    /// - Throws: `missing_field` if required and absent or blank; `invalid_value` if it is a
    ///   list or mapping, or holds a line break or other control character.
    func text(_ key: String, required: Bool = true) throws(RosterError) -> String? {
        guard let node = value(key) else {
            guard required else { return nil }
            throw missing(key)
        }
        guard case let .scalar(scalar) = node else {
            throw RosterError(
                .invalidValue, source: source, line: node.mark?.line,
                "\(path(key)) must be text, not \(Self.kind(of: node))"
            )
        }
        let text = RosterText.trimmed(scalar.string)
        if text.isEmpty {
            guard required else { return nil }
            throw missing(key)
        }
        guard RosterText.isSingleLine(text) else {
            throw RosterError(
                .invalidValue, source: source, line: node.mark?.line,
                "\(path(key)) must be one line of text without line breaks or control characters"
            )
        }
        return text
    }

    /// `key`'s value as an id: `[A-Za-z0-9_-]{1,64}`.
    ///
    /// - Throws: `missing_field`; `invalid_identifier` naming the id.
    func identifier(_ key: String, what: String) throws(RosterError) -> Identifier {
        let text = try self.text(key) ?? ""
        return try Identifier(rosterField: text, what: what, source: source, line: line(of: key), place: "\(path(key)): ")
    }

    /// `key`'s value as a list of nodes; nil if absent or null and not `required`.
    ///
    /// - Throws: `missing_field` if required and absent; `invalid_value` if it is not a list.
    func list(_ key: String, required: Bool = false) throws(RosterError) -> [Node]? {
        guard let node = value(key) else {
            guard required else { return nil }
            throw missing(key)
        }
        guard case let .sequence(sequence) = node else {
            throw RosterError(
                .invalidValue, source: source, line: node.mark?.line,
                "\(path(key)) must be a list (items starting with \"- \"), not \(Self.kind(of: node))"
            )
        }
        return Array(sequence)
    }

    /// The `missing_field` error for `key`, at this mapping's line.
    func missing(_ key: String) -> RosterError {
        RosterError(.missingField, source: source, line: line, "\(Self.label(path)) has no \(RosterText.quoted(key)); add \"\(key): …\"")
    }

    /// "the file" at the root, else the path.
    static func label(_ path: String) -> String {
        path.isEmpty ? "the file" : path
    }

    /// "a list", "a mapping", "text" — for messages about the wrong kind of value.
    static func kind(of node: Node) -> String {
        switch node {
        case .scalar: "text"
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .alias: "an alias"
        }
    }

    /// The plain scalars YAML reads as null (YAML 1.2 core schema).
    private static let nullWords: Set<String> = ["", "~", "null", "Null", "NULL"]
}
