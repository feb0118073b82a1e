import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Which artifact files of a list do not exist, checked cheaply enough for every report.
///
/// Paths are grouped by folder; each folder is opened once and its files are looked up
/// with `faccessat(F_OK)` relative to it: the kernel walks one path component per file
/// instead of the whole path, and fills in no attributes (tens of thousands of files per report).
enum ArtifactPresence {
    /// The paths of `relativePaths` (relative to `root`) that do not exist, in no particular order.
    static func missing(_ relativePaths: [String], under root: String) -> [String] {
        var byFolder: [String: [(path: String, name: String)]] = [:]
        for path in relativePaths {
            // Split on the last "/" over the UTF-8 bytes: Character-wise search costs more than the lookup.
            let bytes = path.utf8
            let slash = bytes.lastIndex(of: UInt8(ascii: "/"))
            let folder = slash.map { String(path[..<$0]) } ?? ""
            let name = slash.map { String(path[bytes.index(after: $0)...]) } ?? path
            byFolder[folder, default: []].append((path, name))
        }
        var missing: [String] = []
        for (folder, files) in byFolder {
            let descriptor = open(folder.isEmpty ? root : root + "/" + folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else {
                missing += files.map(\.path)
                continue
            }
            defer { close(descriptor) }
            for file in files where faccessat(descriptor, file.name, F_OK, 0) != 0 {
                missing.append(file.path)
            }
        }
        return missing
    }
}
