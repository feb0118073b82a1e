/// Why a file in a coach's drop folder cannot be taken as a reply (DESIGN §5).
///
/// `reason` is the one plain sentence written to `rejected/<file>.reason.txt`; `code` is
/// stable snake_case for logs and the audit table. `temporary` and `notesFile` are not
/// mistakes: the watcher leaves such files alone rather than rejecting them.
public enum DropFileNameRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// A temporary or partial name (`DropFileName.isTemporary`); wait for the final name.
    case temporary(name: String)
    /// A `.txt` file: the coach's notes for the reply with the same stem, not a reply.
    case notesFile(name: String)
    /// No `.<ext>` after the stem.
    case noExtension(name: String)
    /// No `_w<NN>`, `_eoc` or `_assessment` part.
    case noSlot(name: String)
    /// A `_w<digits>` part whose number is not a week of the semester.
    case invalidWeek(name: String, week: String, weekCount: Int)
    /// The part before the slot is not a valid student id (`[A-Za-z0-9_-]{1,64}`).
    case invalidStudentID(name: String)
    /// An end-of-course reply (`_eoc`) without `_pass` or `_retake` after it.
    case eocResultMissing(name: String)

    /// The stable snake_case code.
    public var code: String {
        switch self {
        case .temporary: "temporary_file"
        case .notesFile: "notes_file"
        case .noExtension: "no_extension"
        case .noSlot: "no_slot"
        case .invalidWeek: "invalid_week"
        case .invalidStudentID: "invalid_student_id"
        case .eocResultMissing: "eoc_result_missing"
        }
    }

    /// One sentence a coach can act on, naming the file (control characters replaced).
    public var reason: String {
        switch self {
        case let .temporary(name):
            return "The file \(Self.shown(name)) has a temporary name and is left alone until it is complete."
        case let .notesFile(name):
            return "The file \(Self.shown(name)) holds written notes, not an audio reply: put it beside the reply with the same name, such as S1042_w08.m4a."
        case let .noExtension(name):
            return "The file name \(Self.shown(name)) has no extension: name it like S1042_w08.m4a."
        case let .noSlot(name):
            return "The file name \(Self.shown(name)) does not say which week: name it like \(Self.example(for: name))."
        case let .invalidWeek(name, week, weekCount):
            return "The file name \(Self.shown(name)) names week \(MessageText.clean(week, limit: 8)), but weeks run from 1 to \(weekCount): name it like S1042_w08.m4a."
        case let .eocResultMissing(name):
            let example = Self.eocExample(for: name)
            return "The file \(Self.shown(name)) answers an end-of-course assessment but does not give the result: rename it \(example.pass) if the student passed or \(example.retake) for a retake."
        case let .invalidStudentID(name):
            return "The file name \(Self.shown(name)) does not start with a valid student id (letters, digits, \"_\" or \"-\"): name it like S1042_w08.m4a."
        }
    }

    /// `code: reason`.
    public var description: String { "\(code): \(reason)" }

    private static func shown(_ name: String) -> String {
        MessageText.clean(name, limit: 120)
    }

    /// `S1042_eoc_pass.m4a` / `S1042_eoc_retake.m4a` from the coach's own name when usable.
    private static func eocExample(for name: String) -> (pass: String, retake: String) {
        let fallback = ("S1042_eoc_pass.m4a", "S1042_eoc_retake.m4a")
        guard let dot = name.lastIndex(of: "."), let marker = name.range(of: "_eoc", options: [.caseInsensitive, .backwards]),
              marker.upperBound <= dot else { return fallback }
        let student = String(name[..<marker.lowerBound])
        let ext = String(name[name.index(after: dot)...])
        guard Identifier.isValid(student), !ext.isEmpty, Identifier.isValid(ext) else { return fallback }
        return ("\(student)_eoc_pass.\(ext)", "\(student)_eoc_retake.\(ext)")
    }

    /// "S1042_w08.m4a" built from the coach's own stem and extension when they are usable.
    private static func example(for name: String) -> String {
        guard let dot = name.lastIndex(of: ".") else { return "S1042_w08.m4a" }
        let stem = String(name[..<dot])
        let ext = String(name[name.index(after: dot)...])
        guard Identifier.isValid(stem), !ext.isEmpty, Identifier.isValid(ext) else { return "S1042_w08.m4a" }
        return "\(stem)_w08.\(ext)"
    }
}
