import Foundation
import TilawaCore

#if canImport(Glibc)
import Glibc
#endif

/// One look at the drop folder, through descriptors (DESIGN §5): the coach folders that are
/// real directories, the entries waiting in them, and the folders that are suspended.
///
/// The root (`dropbox.path`) may itself be a symbolic link the operator made; nothing inside
/// it is followed. A coach folder, or its `processed/` or `rejected/`, that is not a real
/// directory suspends that coach's folder: none of its files is touched until it is mended,
/// and `tilawa status` names it. Names with a leading `.` (sync tools' own folders),
/// temporary names and `.txt` notes are never entries.
struct DropFolderScan: Sendable {
    /// A coach's folder, open.
    struct CoachFolder: Sendable {
        /// The folder's name: the coach id it claims to be.
        let coach: String
        let directory: DirectoryDescriptor
    }

    /// Something waiting in a coach's folder: a reply, or anything else to be rejected.
    struct Entry: Sendable {
        let folder: CoachFolder
        let name: EntryName
        let observation: SettleTracker.Observation
        /// The settle tracker's key: `<root>/<coach>/<name>`, as inotify reports it.
        let key: String
        /// Whether the entry can have no completion event (anything but a single-link regular
        /// file with a UTF-8 name): it is decided once it stops changing.
        var isUnusual: Bool { !observation.isPlainFile || name.text == nil }
    }

    /// A coach folder nothing is taken from, and why.
    struct Suspension: Sendable, Hashable, Encodable {
        /// `C02` or `C02/rejected`.
        let folder: String
        /// One sentence for operations.
        let reason: String
    }

    /// Whether the root exists as a directory.
    var exists = false
    var folders: [CoachFolder] = []
    var entries: [Entry] = []
    var suspensions: [Suspension] = []
    /// Files in the coaches' `rejected/` folders (not counting `.reason.txt`), when asked for.
    var rejectedFiles = 0

    /// The two folders the service writes into inside each coach folder.
    static let outcomeFolders = ["processed", "rejected"]

    /// Scans the drop folder at `root`; `countRejected` also lists each `rejected/` (for status).
    init(root: String, countRejected: Bool = false) {
        guard let rootDirectory = try? DirectoryDescriptor.open(path: root) else { return }
        exists = true
        for name in rootDirectory.entries() where name.bytes.first != UInt8(ascii: ".") {
            guard let info = rootDirectory.status(of: name) else { continue }
            let kind = info.st_mode & S_IFMT
            guard kind == S_IFDIR || kind == S_IFLNK else { continue }  // a stray file at the root is no coach's
            guard let coach = name.text else {
                suspensions.append(.init(folder: name.display, reason: "its name is not UTF-8 text, so it cannot name a coach"))
                continue
            }
            guard kind == S_IFDIR, let directory = try? rootDirectory.openDirectory(name) else {
                suspensions.append(.init(folder: coach, reason: "it is a symbolic link, not a folder; nothing in it is read"))
                continue
            }
            scan(CoachFolder(coach: coach, directory: directory), root: root, countRejected: countRejected)
        }
    }

    private mutating func scan(_ folder: CoachFolder, root: String, countRejected: Bool) {
        let names = folder.directory.entries()
        for outcome in Self.outcomeFolders {
            let name = EntryName(outcome)
            guard names.contains(name), let info = folder.directory.status(of: name) else { continue }
            guard info.st_mode & S_IFMT == S_IFDIR else {
                let what = info.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "not a folder"
                suspensions.append(.init(folder: "\(folder.coach)/\(outcome)", reason: "it is \(what); this coach's folder is left alone until it is a plain folder"))
                return
            }
        }
        folders.append(folder)
        for name in names {
            if Self.isIgnored(name) { continue }
            guard let info = folder.directory.status(of: name) else { continue }
            if info.st_mode & S_IFMT == S_IFDIR, let text = name.text, Self.outcomeFolders.contains(text) {
                if countRejected, text == "rejected", let rejected = try? folder.directory.openDirectory(name) {
                    rejectedFiles += rejected.entries().filter { entry in
                        guard let text = entry.text else { return true }
                        return !text.hasSuffix(".reason.txt") && !DropFileName.isSidecar(text)
                    }.count
                }
                continue
            }
            let key = root + "/" + folder.coach + "/" + (name.text ?? name.invalidNameStandIn.display)
            entries.append(Entry(folder: folder, name: name, observation: SettleTracker.Observation(info), key: key))
        }
    }

    /// Names never touched: a leading `.`, temporary names, `.txt` notes (read with their reply).
    static func isIgnored(_ name: EntryName) -> Bool {
        if name.bytes.first == UInt8(ascii: ".") { return true }
        guard let text = name.text else { return false }
        return DropFileName.isTemporary(text) || DropFileName.isSidecar(text)
    }
}
