import TilawaCore

extension LogPseudonyms {
    /// A file of a coach's drop folder as the log shows it, `<coach>/<name>`: the folder as the
    /// coach's pseudonym, and a reply's name with the student id it starts with as the
    /// student's (`c_…/s_…_w08_take2.m4a`). A name that does not read as a reply's may still
    /// hold someone's id, or name, where the grammar cannot find it: only its extension is
    /// shown (`c_…/….m4a`); the coach reads the rest in `rejected/`.
    func dropFile(coach: String, name: EntryName) -> String {
        guard !isClear else { return "\(coach)/\(name.display)" }
        return "\(self.coach(coach))/\(dropFileName(name))"
    }

    /// `text` (a rejection's reason, an error) with the coach's id, the file's name and the
    /// student id in it shown as `dropFile` shows them; as it is with `log.ids: clear`.
    func scrub(_ text: String, coach: String, name: EntryName?) -> String {
        guard !isClear else { return text }
        var replacements: [(String, String)] = [(coach, self.coach(coach))]
        if let name, let original = name.text {
            replacements.append((original, dropFileName(name)))
            if let id = Self.studentId(inReplyName: original) { replacements.append((id, student(id))) }
        }
        return Self.replacing(replacements, in: text)
    }

    /// The coach's folder a suspended folder is or is in (`C02` of `C02/rejected`).
    static func coachFolder(of folder: String) -> String {
        String(folder.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first ?? Substring(folder))
    }

    /// The name with its student id as a pseudonym, or `…` and the extension.
    private func dropFileName(_ name: EntryName) -> String {
        guard let text = name.text else { return "…" }
        if let id = Self.studentId(inReplyName: text) {
            return student(id) + text.dropFirst(id.count)
        }
        guard let dot = text.lastIndex(of: "."), Identifier.isValid(String(text[text.index(after: dot)...])) else { return "…" }
        return "…" + text[dot...]
    }

    /// The student id a reply's name starts with, as written, or nil when the name does not
    /// read as a reply's. Any week number reads here: a week past the semester's is refused,
    /// but its name still starts with the id.
    private static func studentId(inReplyName name: String) -> String? {
        guard let parsed = try? DropFileName(parsing: name, weekCount: 99) else { return nil }
        let id = parsed.studentID.rawValue
        return name.hasPrefix(id) ? id : nil
    }

    /// `text` with each occurrence of a replacement's first string made its second, in one
    /// pass, the longest first where two start at one place: what one replacement wrote is
    /// never read by another (a token's hex digits may spell a short numeric id). Only whole
    /// words are replaced, so that a folder named `a` does not take every `a` of a sentence.
    static func replacing(_ replacements: [(String, String)], in text: String) -> String {
        let candidates = replacements.filter { !$0.0.isEmpty }.sorted { $0.0.count > $1.0.count }
        func isWord(_ character: Character?) -> Bool {
            guard let character, character.isASCII else { return false }
            return character.isLetter || character.isNumber || character == "_" || character == "-"
        }
        var result = ""
        var index = text.startIndex
        while index < text.endIndex {
            let before: Character? = index > text.startIndex ? text[text.index(before: index)] : nil
            let match = candidates.first { candidate in
                guard !isWord(before), text[index...].hasPrefix(candidate.0) else { return false }
                let end = text.index(index, offsetBy: candidate.0.count)
                return !isWord(end < text.endIndex ? text[end] : nil)
            }
            if let match {
                result += match.1
                index = text.index(index, offsetBy: match.0.count)
            } else {
                result.append(text[index])
                index = text.index(after: index)
            }
        }
        return result
    }
}
