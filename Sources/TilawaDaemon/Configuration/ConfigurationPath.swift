/// Lexical path handling for configured paths: no file-system access, no `~` expansion.
enum ConfigurationPath {
    /// `path` made absolute against `directory` (itself absolute), with `.` and empty
    /// components removed; `..` is kept, since resolving it needs the file system (symlinks).
    static func absolute(_ path: String, in directory: String) -> String {
        normalized(path.hasPrefix("/") ? path : directory + "/" + path)
    }

    /// `child` (relative) inside `directory`.
    static func join(_ directory: String, _ child: String) -> String {
        normalized(directory + "/" + child)
    }

    private static func normalized(_ path: String) -> String {
        let components = path.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        return "/" + components.joined(separator: "/")
    }
}
