import Foundation
import TilawaCore

/// Counts what waits in the coach drop folder (DESIGN §5) without touching anything.
///
/// The same descriptor-based look the watcher takes (`DropFolderScan`): links are described,
/// never followed, so a waiting entry's age is its own mtime, not its target's. Only the top
/// level of each `<dropbox>/<coach>/` folder and its `rejected/` folder are listed;
/// `processed/` (which grows forever) is never opened.
struct DropFolderCensus: Sendable, Equatable {
    /// Entries waiting to be taken (temporary names and `.txt` notes are not replies; links and
    /// other odd entries are, until the watcher rejects them).
    var backlog = 0
    /// Modification time of the oldest waiting entry.
    var oldestModified: Date?
    /// Files in `rejected/` folders, not counting the `.reason.txt` beside each.
    var rejected = 0
    /// Whether the drop folder exists.
    var exists = false
    /// Coach folders nothing is taken from, and why (a link where a folder should be).
    var suspended: [DropFolderScan.Suspension] = []

    /// Takes the census of the drop folder at `path`.
    init(path: String) {
        let scan = DropFolderScan(root: path, countRejected: true)
        exists = scan.exists
        backlog = scan.entries.count
        oldestModified = scan.entries.map(\.observation.modified).min()
        rejected = scan.rejectedFiles
        suspended = scan.suspensions.sorted { $0.folder < $1.folder }
    }
}
