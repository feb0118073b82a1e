/// Which programme file a path given to `tilawa roster import` is, judged by its extension.
public enum RosterFileKind: String, Sendable, Hashable, CaseIterable {
    /// `config/program.yaml`: time zone, semesters, coaches, curriculum (`ProgramFile`).
    case program
    /// `config/students.csv`: one student per row (`StudentsCSV`).
    case students

    /// `.program` for `.yaml`/`.yml`, `.students` for `.csv`, in any letter case.
    ///
    /// Only the name is looked at, never the contents, so the caller can report a wrong file
    /// before reading it.
    /// - Throws: `unsupported_file` for any other name, including one with no extension.
    public static func detect(path: String) throws(RosterError) -> RosterFileKind {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        // A leading dot (".yaml") is a hidden file's name, not an extension.
        let fileExtension = parts.count > 1 && !parts[0].isEmpty ? parts.last.map { $0.lowercased() } : nil
        switch fileExtension {
        case "yaml", "yml":
            return .program
        case "csv":
            return .students
        default:
            throw RosterError(
                .unsupportedFile, source: path, line: nil,
                "not a programme file; give a .yaml/.yml programme file (like config/program.yaml) or a .csv students file (like config/students.csv)"
            )
        }
    }
}
