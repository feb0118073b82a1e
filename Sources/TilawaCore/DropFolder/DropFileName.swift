/// A coach's reply file name in the drop folder, parsed (DESIGN §5).
///
/// Grammar, case-insensitive: `<student-id>_w<NN>[_anything].<ext>`,
/// `<student-id>_eoc_pass[_anything].<ext>` / `<student-id>_eoc_retake[_anything].<ext>`
/// (an end-of-course reply carries its result; a bare `_eoc` is refused with
/// `eoc_result_missing`), `<student-id>_assessment[_anything].<ext>`,
/// where `NN` is one or two digits (`w8`, `w08`) and the extension is what follows the
/// last dot. Student ids may themselves contain `_` and `-`, so the name is split on `_`
/// and the slot is the LAST part that is exactly `w<digits>`, `eoc` or `assessment`;
/// everything before it is the student id: `ab_wx_w08.m4a` → `ab_wx`, week 8;
/// `S1042_w08_take2.mp3` → `S1042`, week 8. When that is ambiguous
/// (`ab_w1_x_w08.m4a`) pass `isKnownStudent` and the last reading whose student exists wins.
///
/// Temporary names (`isTemporary`) and `.txt` notes (`isSidecar`) are refused with
/// `temporary_file` / `notes_file`; callers should test for them first and leave them alone.
public struct DropFileName: Sendable, Hashable {
    /// The file name as found.
    public let name: String
    /// The student the reply is for.
    public let studentID: Identifier
    /// The slot it answers.
    public let slot: Slot
    /// The end-of-course result (`_eoc_pass`, `_eoc_retake`); nil for other slots.
    public let result: EOCResult?
    /// The name without its last `.<ext>`.
    public let stem: String
    /// The extension as written, without the dot (`M4A`, `mp3`); not checked here, decoding decides.
    public let fileExtension: String

    /// Parses a bare file name (not a path).
    ///
    /// - Parameters:
    ///   - weekCount: weeks in the semester; `_w16` with 15 weeks is `invalid_week`.
    ///   - isKnownStudent: disambiguates ids containing `_w<N>`; by default every valid id is.
    /// - Throws: `DropFileNameRefusal` with a sentence for the coach.
    public init(
        parsing name: String,
        weekCount: Int = 15,
        isKnownStudent: (Identifier) -> Bool = { _ in true }
    ) throws(DropFileNameRefusal) {
        if Self.isTemporary(name) { throw .temporary(name: name) }
        if Self.isSidecar(name) { throw .notesFile(name: name) }
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex, name.index(after: dot) != name.endIndex else {
            throw .noExtension(name: name)
        }
        let stem = name[..<dot]
        let parts = stem.split(separator: "_", omittingEmptySubsequences: false)

        var readings: [(student: Identifier, slot: Slot, result: EOCResult?)] = []
        var firstProblem: DropFileNameRefusal?
        // Last part first, so the longest possible student id is tried first.
        for index in parts.indices.dropFirst().reversed() {
            let token = parts[index]
            let slot: Slot
            var result: EOCResult?
            switch token.lowercased() {
            case "eoc":
                result = parts.indices.contains(index + 1) ? EOCResult(rawValue: parts[index + 1].lowercased()) : nil
                guard result != nil else {
                    firstProblem = firstProblem ?? .eocResultMissing(name: name)
                    continue
                }
                slot = .eoc
            case "assessment":
                slot = .assessment
            case let lower where lower.hasPrefix("w") && lower.utf8.count > 1
                && lower.utf8.dropFirst().allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }):
                let digits = String(token.dropFirst())
                guard let week = Slot.weekNumber(digits), (1...max(1, weekCount)).contains(week) else {
                    firstProblem = firstProblem ?? .invalidWeek(name: name, week: digits, weekCount: weekCount)
                    continue
                }
                slot = .week(week)
            default:
                continue
            }
            guard let student = Identifier(rawValue: parts[..<index].joined(separator: "_")) else {
                firstProblem = firstProblem ?? .invalidStudentID(name: name)
                continue
            }
            readings.append((student, slot, result))
        }
        guard let chosen = readings.first(where: { isKnownStudent($0.student) }) ?? readings.first else {
            throw firstProblem ?? .noSlot(name: name)
        }
        self.name = name
        self.studentID = chosen.student
        self.slot = chosen.slot
        self.result = chosen.result
        self.stem = String(stem)
        self.fileExtension = String(name[name.index(after: dot)...])
    }

    /// The notes file that belongs to this reply: `<same stem>.txt`.
    public var sidecarName: String { stem + ".txt" }

    /// Whether `otherName` is this reply's notes file (`.txt` in any case, same stem exactly).
    public func isSidecar(named otherName: String) -> Bool {
        Self.isSidecar(otherName) && otherName.dropLast(4) == stem
    }

    /// Whether `name` is a notes file (`<stem>.txt`, any case), never a reply in itself.
    public static func isSidecar(_ name: String) -> Bool {
        !isTemporary(name) && name.utf8.count > 4 && name.lowercased().hasSuffix(".txt")
    }

    /// Whether `name` is a temporary or partial file the watcher must never touch (DESIGN §5).
    ///
    /// Leading `.` (hidden files, rsync and Syncthing temporaries) or `~$` (Office lock
    /// files); suffixes `.tmp`, `.part`, `.crdownload`, `.partial`, and `.filepart` (WinSCP
    /// over SFTP, added because the drop folder may be an SFTP chroot); anything containing
    /// `.syncthing.`. Case-insensitive.
    public static func isTemporary(_ name: String) -> Bool {
        if name.hasPrefix(".") || name.hasPrefix("~$") { return true }
        let lower = name.lowercased()
        if temporarySuffixes.contains(where: { lower.hasSuffix($0) }) { return true }
        return lower.contains(".syncthing.")
    }

    private static let temporarySuffixes = [".tmp", ".part", ".crdownload", ".partial", ".filepart"]
}
