extension LogPseudonyms {
    /// A request's path as the log shows it: the segment after `students` or `coaches` (whom
    /// the request is about) as that student's or coach's pseudonym, the one after SCIM's
    /// `Users` as a person's (`/v1/students/s_3f9a0c1d2e4b/weeks/3/submissions`), and the
    /// query left off, as it may name someone too (`/v1/audit?student=…`). As it is with
    /// `log.ids: clear`.
    public func path(_ path: String) -> String {
        guard !isClear else { return path }
        let bare = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? path
        var segments = bare.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        // In order: a segment already replaced is a token, never `students` again.
        for index in segments.indices.dropFirst() where !segments[index].isEmpty {
            switch segments[index - 1] {
            case "students": segments[index] = student(segments[index])
            case "coaches": segments[index] = coach(segments[index])
            case "Users" where segments[index] != ".search": segments[index] = person(segments[index])
            default: break
            }
        }
        return segments.joined(separator: "/")
    }
}
