import TilawaCore

extension Identifier {
    /// Validates an id read from a programme file, refusing it with a roster message.
    ///
    /// `what` names the field ("coach id"), `place` prefixes the detail (a YAML path and ": ", or "").
    /// - Throws: `invalid_identifier`, saying why when the cause is the length.
    init(rosterField text: String, what: String, source: String, line: Int?, place: String) throws(RosterError) {
        guard let id = Identifier(rawValue: text) else {
            let length = text.utf8.count
            let why = length > Identifier.maximumLength
                ? "it is \(length) characters long; an id has at most \(Identifier.maximumLength)"
                : "use only letters A–Z and a–z, digits, \"_\" and \"-\" (no spaces, dots or slashes)"
            throw RosterError(.invalidIdentifier, source: source, line: line, "\(place)\(what) \(RosterText.quoted(text)) is not a valid id: \(why)")
        }
        self = id
    }
}
