import Foundation
import TilawaCore

/// Counts what waits in the coach drop folder (DESIGN §5) without touching anything.
///
/// Only the top level of each `<dropbox>/<coach>/` folder and its `rejected/` folder are
/// listed; `processed/` (which grows forever) is never opened.
struct DropFolderCensus: Sendable, Equatable {
    /// Reply files waiting to be taken (temporary names and `.txt` notes are not replies).
    var backlog = 0
    /// Modification time of the oldest waiting file.
    var oldestModified: Date?
    /// Files in `rejected/` folders, not counting the `.reason.txt` beside each.
    var rejected = 0
    /// Whether the drop folder exists.
    var exists = false

    /// Takes the census of the drop folder at `path`.
    init(path: String) {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return }
        exists = true
        for coach in Self.entries(of: path) where !coach.hasPrefix(".") {
            let coachPath = path + "/" + coach
            for name in Self.entries(of: coachPath) {
                let entryPath = coachPath + "/" + name
                var info = stat()
                guard stat(entryPath, &info) == 0 else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFDIR where name == "rejected":
                    rejected += Self.entries(of: entryPath).filter { !$0.hasSuffix(".reason.txt") && !DropFileName.isSidecar($0) }.count
                case S_IFREG where !DropFileName.isTemporary(name) && !DropFileName.isSidecar(name):
                    backlog += 1
                    let modified = Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec))
                    if oldestModified.map({ modified < $0 }) ?? true { oldestModified = modified }
                default:
                    continue
                }
            }
        }
    }

    private static func entries(of path: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    }
}
