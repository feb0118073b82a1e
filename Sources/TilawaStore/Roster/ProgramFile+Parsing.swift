extension ProgramFile {
    /// Parses and checks the text of `config/program.yaml`.
    ///
    /// A start date may be written as a YAML date (`2026-09-05`) or a string (`"2026-09-05"`).
    /// Keys not in the format are refused (`unknown_field`), so a typo cannot silently drop a
    /// section. Errors carry the line of the offending node and, for problems in meaning,
    /// its path with 0-based indexes (`levels[2].weeks[4]`).
    /// - Parameters:
    ///   - text: the whole file, UTF-8 decoded (a byte-order mark and CRLF line ends are fine).
    ///   - source: the file name as the administrator gave it, used in messages.
    /// - Throws: the first problem in file order, e.g. `malformed_yaml`, `missing_field`,
    ///   `invalid_identifier`, `duplicate_id`, `semester_not_saturday`, `invalid_time_zone`,
    ///   `incomplete_curriculum`, `invalid_week`, `invalid_value`, `unknown_field`,
    ///   `invalid_ayahs`, `unknown_ayah` (an `ayahs` list checked against the Quran text).
    public static func parse(_ text: String, source: String) throws(RosterError) -> ProgramFile {
        let root = try YAMLDocument.compose(text, source: source)
        return try ProgramFileReader(source: source).read(root)
    }
}
