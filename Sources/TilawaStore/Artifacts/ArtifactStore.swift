import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Artifact files under `<state_dir>/artifacts`, placed crash-safely — or, with a `remote`
/// (an S3 store, DESIGN §13), kept there, the local directory then only a work area.
///
/// Rows store paths relative to this root (`submissions/2026/11/<id>.opus`), so the state
/// directory can move. Every file is written to a temporary name, fsynced, renamed and its
/// directory fsynced before the caller commits the row that points to it; so after a crash
/// there may be a file without a row (swept at start), never a row without its file. With a
/// remote the same holds for objects: `place`, `commit`, `write` and `publish` return once the
/// store has answered the upload, and the local file is gone.
public struct ArtifactStore: Sendable, Equatable {
    /// Extensions of the containers an encoded recording (`<id>.opus`) is also kept in, beside
    /// it and with the same packets: MP4 (`.m4a`) and CAF. No row names them: they go with
    /// their Ogg file (kept, swept and removed together).
    public static let audioVariantExtensions = ["m4a", "caf"]

    /// The variants of an encoded recording's path (none for another kind of file).
    public static func variants(ofAudio path: String) -> [String] {
        guard path.hasSuffix(".opus") else { return [] }
        let stem = path.dropLast(".opus".count)
        return audioVariantExtensions.map { "\(stem).\($0)" }
    }

    /// The Ogg file a variant belongs to, or nil when `path` is not a variant's. Originals may
    /// be `.m4a` or `.caf` too (what a phone sends): under `originals/` nothing is a variant.
    public static func audioPath(ofVariant path: String) -> String? {
        guard !path.hasPrefix(Family.originals.rawValue + "/"),
              let ext = audioVariantExtensions.first(where: { path.hasSuffix(".\($0)") }) else { return nil }
        return path.dropLast(ext.count + 1) + ".opus"
    }

    /// The artifacts directory.
    public let root: URL

    /// Which family of artifact.
    public enum Family: String, Sendable, CaseIterable {
        case originals, submissions, feedback, comments, annotations
    }

    /// Where artifacts are kept when not under `root` (nil: under `root`).
    public let remote: (any ArtifactRemote)?

    /// A store rooted at `root`, keeping artifacts in `remote` when there is one.
    public init(root: URL, remote: (any ArtifactRemote)? = nil) {
        self.root = root
        self.remote = remote
    }

    public static func == (lhs: ArtifactStore, rhs: ArtifactStore) -> Bool {
        lhs.root == rhs.root && lhs.remote?.description == rhs.remote?.description
    }

    /// `family/YYYY/MM/<name>`, dated in UTC so the layout never depends on the zone.
    public func relativePath(_ family: Family, name: String, date: Date) -> String {
        "\(family.rawValue)/\(Self.monthKey(date))/\(name)"
    }

    /// Absolute path of a stored artifact.
    public func path(_ relative: String) -> String {
        root.appendingPathComponent(relative).path
    }

    /// Absolute path of a stored artifact, or nil when `relative` could name a file outside the
    /// store (see `isContained`): what removes or hands out a file a row names goes through it,
    /// so a damaged or hostile row cannot reach past the artifacts directory.
    public func containedPath(_ relative: String) -> String? {
        Self.isContained(relative) ? path(relative) : nil
    }

    /// Whether `relative` stays inside the directory it is taken from: relative, no empty, `.`
    /// or `..` component. (A name with a control character stays inside: the sweeper removes
    /// such planted files by the name it listed.)
    public static func isContained(_ relative: String) -> Bool {
        !relative.isEmpty && relative.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { component in
            !component.isEmpty && component != "." && component != ".."
        }
    }

    /// A temporary path in the directory of `relative` (created if needed), for writers that
    /// produce the file themselves (the Opus encoder); finish with `commit(temporary:to:)`.
    public func temporaryPath(for relative: String) throws -> String {
        let final = path(relative)
        try makeParent(of: final)
        let token = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let name = ".\(URL(fileURLWithPath: final).lastPathComponent).\(getpid())-\(token).tmp"
        return URL(fileURLWithPath: final).deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// Creates the directory `relative` will live in; for writers that rename into place themselves.
    public func prepareDirectory(for relative: String) throws {
        try makeParent(of: path(relative))
    }

    /// Moves a file already on this filesystem (a staged upload) into place durably; with a
    /// remote, uploads it and keeps the local file as the work area's copy for the one reader
    /// that comes next (the encode job: it need not fetch back what was just sent).
    public func place(_ source: String, at relative: String) throws {
        if let remote {
            try remote.upload(file: source, to: relative)
            // Durable before it is renamed in: a copy there is whole even after a power cut.
            let copy = placedCopyPath(relative)
            if (try? Self.fsync(path: source)) == nil || (try? makeParent(of: copy)) == nil || rename(source, copy) != 0 { unlink(source) }
            return
        }
        let final = path(relative)
        try makeParent(of: final)
        try Self.fsync(path: source)
        guard rename(source, final) == 0 else { throw StoreError.fromErrno(errno, "cannot move \(source) to \(final)") }
        try Self.fsyncDirectory(of: final)
    }

    /// Renames a finished temporary file to `relative` durably.
    public func commit(temporary: String, to relative: String) throws {
        try place(temporary, at: relative)
    }

    /// Writes `data` to `relative` durably.
    public func write(_ data: Data, to relative: String) throws {
        if let remote { return try remote.upload(data: data, to: relative) }
        let temporary = try temporaryPath(for: relative)
        do {
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o640)
            guard descriptor >= 0 else { throw StoreError.fromErrno(errno, "cannot create \(temporary)") }
            defer { close(descriptor) }
            try data.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw StoreError.fromErrno(errno, "cannot write \(temporary)")
                    }
                    offset += written
                }
            }
            guard Glibc.fsync(descriptor) == 0 else { throw StoreError.fromErrno(errno, "cannot fsync \(temporary)") }
        } catch {
            unlink(temporary)
            throw error
        }
        do {
            try place(temporary, at: relative)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Makes the file a writer produced at `path(relative)` (the encoder, the remuxer) the
    /// artifact: nothing more on disk (it is already in place); with a remote, uploads it and
    /// removes the local file.
    public func publish(_ relative: String) throws {
        guard let remote else { return }
        let local = path(relative)
        try remote.upload(file: local, to: relative)
        unlink(local)
    }

    /// Where a writer that renames into place itself (the encoder) makes `relative` for now,
    /// so that nothing it does touches the artifact until `publish(_:from:)`: with a remote,
    /// `path(relative)` in this node's work area; on disk a name of this attempt's own beside
    /// the artifact (hidden, `.tmp`: the sweep takes it if the process dies). A worker that turns
    /// out to have lost its job meanwhile discards it, and another worker's file stays as it was
    /// — on a disk the nodes share (`file:///…`) as on one.
    public func workPath(for relative: String) throws -> String {
        guard remote == nil else {
            try prepareDirectory(for: relative)
            return path(relative)
        }
        return try temporaryPath(for: relative)
    }

    /// Makes `work` (from `workPath(for:)`) the artifact `relative`, durably: with a remote
    /// uploaded and the local file removed; on disk renamed into place.
    public func publish(_ relative: String, from work: String) throws {
        if let remote {
            try remote.upload(file: work, to: relative)
            unlink(work)
            return
        }
        try place(work, at: relative)
    }

    /// Drops a `workPath(for:)` file that was not published (a missing one is not an error).
    public func discardWork(_ work: String) {
        unlink(work)
    }

    /// Removes an artifact; a missing file is not an error. While a backup runs nothing is
    /// removed (`BackupLock`): the file stays as an orphan for the sweeper. With a remote, an
    /// object the store would not remove stays an orphan for the listing sweep as well.
    public func remove(_ relative: String) {
        guard let target = containedPath(relative) else { return }
        if let remote {
            try? remote.delete(relative)
            unlink(target)
            unlink(placedCopyPath(relative))
            return
        }
        BackupLock(stateRoot: root.deletingLastPathComponent()).unlessBackingUp { unlink(target) }
    }

    /// True when the artifact's file exists (with a remote: the store answers that it has it).
    public func exists(_ relative: String) -> Bool {
        if let remote { return (try? remote.exists(relative)) ?? false }
        return FileManager.default.fileExists(atPath: path(relative))
    }

    /// Where `place` leaves the copy of what it uploaded: `.placed/<relative>` in the work area.
    /// Only `place` writes there, renaming a whole file in, so a file there is always complete
    /// (and the object is immutable: its key is its id). The first `localCopy` takes it; the
    /// sweep removes one no reader took.
    func placedCopyPath(_ relative: String) -> String {
        root.appendingPathComponent(".placed").appendingPathComponent(relative).path
    }

    /// A file with the artifact's bytes for a reader that takes a path: its own file on disk,
    /// or with a remote the copy `place` left (taken: `release()` removes it) or one fetched
    /// into the work area (`release()` removes it).
    /// - Throws: `StoreError.io` when there is no such artifact (or `relative` could name
    ///   something outside the store).
    public func localCopy(of relative: String) throws -> LocalArtifact {
        guard let own = containedPath(relative) else { throw StoreError.io("artifact \(relative) is not a path inside the store") }
        guard let remote else { return LocalArtifact(path: own, isCopy: false) }
        let placed = placedCopyPath(relative)
        var info = stat()
        if lstat(placed, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
            let taken = try temporaryPath(for: relative)
            // Renamed away first: two readers never both take it (the second fetches).
            // Its time made now: the sweep leaves a taken copy alone however long it waited.
            if rename(placed, taken) == 0 {
                utime(taken, nil)
                return LocalArtifact(path: taken, isCopy: true)
            }
        }
        let copy = try temporaryPath(for: relative)
        do {
            guard try remote.download(relative, to: copy) else { throw StoreError.io("artifact \(relative) is missing from \(remote.description)") }
        } catch {
            unlink(copy)
            throw error
        }
        return LocalArtifact(path: copy, isCopy: true)
    }

    /// `localCopy(of:)` for async callers (the export): nil when the artifact is gone or its
    /// path could name something outside the store.
    public func readableCopy(of relative: String) async throws -> LocalArtifact? {
        guard let own = containedPath(relative) else { return nil }
        guard let remote else { return LocalArtifact(path: own, isCopy: false) }
        let copy = try temporaryPath(for: relative)
        do {
            guard try await remote.fetch(relative, to: copy) else {
                unlink(copy)
                return nil
            }
        } catch {
            unlink(copy)
            throw error
        }
        return LocalArtifact(path: copy, isCopy: true)
    }

    /// With a remote: the months (`YYYY/MM`) any family has objects in, from the store's
    /// folders — so the sweep also visits a month no row is dated in (an object left by a
    /// delete that failed, say). Empty without a remote (`layout()` walks the disk).
    public func remoteMonths() throws -> Set<String> {
        guard let remote else { return [] }
        var months = Set<String>()
        for family in Family.allCases {
            for year in try remote.folders(under: family.rawValue + "/") where year.count == 4 && Int(year) != nil {
                for month in try remote.folders(under: "\(family.rawValue)/\(year)/") where Self.monthBounds("\(year)/\(month)") != nil {
                    months.insert("\(year)/\(month)")
                }
            }
        }
        return months
    }

    /// The artifacts of one family's month (`family/YYYY/MM/…`) with their sizes and times: the
    /// directory's files (links not followed), or one listing of the remote's keys.
    public func entries(family: Family, month: String) throws -> [ArtifactEntry] {
        if let remote { return try remote.list(prefix: family.rawValue + "/" + month + "/") }
        return files(family: family, month: month).map { file in
            var info = stat()
            guard lstat(path(file), &info) == 0 else { return ArtifactEntry(path: file, size: 0, modified: nil) }
            return ArtifactEntry(path: file, size: Int64(info.st_size),
                                 modified: Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9))
        }
    }

    /// `YYYY/MM` of an instant, in UTC (the layout's month).
    public static func monthKey(_ date: Date) -> String {
        let parts = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date)
        let year = parts.year ?? 1970, month = parts.month ?? 1
        return "\(year)/\(month < 10 ? "0" : "")\(month)"
    }

    /// The first instant of a `YYYY/MM` month and of the next, in UTC; nil for anything else.
    public static func monthBounds(_ key: String) -> (Date, Date)? {
        let parts = key.split(separator: "/")
        guard parts.count == 2, parts[0].count == 4, parts[1].count == 2, let year = Int(parts[0]), let month = Int(parts[1]),
              (1...12).contains(month) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        guard let start = calendar.date(from: DateComponents(year: year, month: month, day: 1)),
              let end = calendar.date(byAdding: .month, value: 1, to: start) else { return nil }
        return (start, end)
    }

    /// The month directories on disk (`YYYY/MM` under any family), and every file that is not
    /// in one (relative paths): what the sweep walks, a month at a time. Links are never
    /// followed: a symbolic link is itself a stray (removing it removes the link, not what it
    /// points to).
    public func layout() -> (months: Set<String>, strays: [String]) {
        var months = Set<String>()
        var strays: [String] = []
        let manager = FileManager.default
        func isDirectory(_ relative: String) -> Bool { Self.isRealDirectory(path(relative)) }
        func allFiles(under relative: String) -> [String] {
            guard let enumerator = manager.enumerator(atPath: path(relative)) else { return [] }
            return enumerator.compactMap { $0 as? String }.map { relative + "/" + $0 }.filter { !isDirectory($0) }
        }
        let families = Set(Family.allCases.map(\.rawValue))
        for top in (try? manager.contentsOfDirectory(atPath: root.path)) ?? [] {
            guard families.contains(top), isDirectory(top) else {
                strays += isDirectory(top) ? allFiles(under: top) : [top]
                continue
            }
            for year in (try? manager.contentsOfDirectory(atPath: path(top))) ?? [] {
                let yearPath = top + "/" + year
                guard year.count == 4, Int(year) != nil, isDirectory(yearPath) else {
                    strays += isDirectory(yearPath) ? allFiles(under: yearPath) : [yearPath]
                    continue
                }
                for month in (try? manager.contentsOfDirectory(atPath: path(yearPath))) ?? [] {
                    let monthPath = yearPath + "/" + month
                    if isDirectory(monthPath), Self.monthBounds(year + "/" + month) != nil {
                        months.insert(year + "/" + month)
                    } else {
                        strays += isDirectory(monthPath) ? allFiles(under: monthPath) : [monthPath]
                    }
                }
            }
        }
        return (months, strays)
    }

    /// The files of one family's month directory (`family/YYYY/MM/…`, temporary files and
    /// links included, links not followed); nothing when the month directory is not a real one.
    public func files(family: Family, month: String) -> [String] {
        let relative = family.rawValue + "/" + month
        guard Self.isRealDirectory(path(relative)), let enumerator = FileManager.default.enumerator(atPath: path(relative)) else {
            return []
        }
        var files: [String] = []
        for case let name as String in enumerator {
            let full = relative + "/" + name
            if !Self.isRealDirectory(path(full)) { files.append(full) }
        }
        return files
    }

    /// A directory itself, not a link to one (`lstat`).
    static func isRealDirectory(_ absolute: String) -> Bool {
        var info = stat()
        return lstat(absolute, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Every file under the root, as relative paths (temporary files included).
    public func allFiles() -> [String] {
        guard let enumerator = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: [.isRegularFileKey], options: []) else { return [] }
        let prefix = root.standardizedFileURL.path + "/"
        var files: [String] = []
        for case let url as URL in enumerator {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            let full = url.standardizedFileURL.path
            if full.hasPrefix(prefix) { files.append(String(full.dropFirst(prefix.count))) }
        }
        return files
    }

    /// Bytes used by all artifacts.
    public func totalBytes() -> Int64 {
        allFiles().reduce(0) { total, relative in
            let attributes = try? FileManager.default.attributesOfItem(atPath: path(relative))
            return total + ((attributes?[.size] as? NSNumber)?.int64Value ?? 0)
        }
    }

    private func makeParent(of file: String) throws {
        let parent = URL(fileURLWithPath: file).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            throw StoreError.io("cannot create \(parent.path): \(error.localizedDescription)")
        }
    }

    static func fsync(path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw StoreError.fromErrno(errno, "cannot open \(path)") }
        defer { close(descriptor) }
        guard Glibc.fsync(descriptor) == 0 else { throw StoreError.fromErrno(errno, "cannot fsync \(path)") }
    }

    static func fsyncDirectory(of file: String) throws {
        let directory = URL(fileURLWithPath: file).deletingLastPathComponent().path
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw StoreError.fromErrno(errno, "cannot open \(directory)") }
        defer { close(descriptor) }
        guard Glibc.fsync(descriptor) == 0 else { throw StoreError.fromErrno(errno, "cannot fsync \(directory)") }
    }
}
