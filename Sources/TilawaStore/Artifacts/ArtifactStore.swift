import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The artifacts (DESIGN §6, §13), wherever `artifacts.url` keeps them: the layout on top of
/// one `ArtifactStorage` (disk or S3), and the local work area writers and readers that take
/// a path use.
///
/// Rows store paths relative to the store (`submissions/2026/11/<id>.opus`), so the state
/// directory can move. `place`, `commit`, `write` and `publish` return once the artifact is
/// durable, before the caller commits the row that points to it: after a crash there may be
/// an artifact without a row (swept), never a row without its artifact.
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

    /// The local directory: on disk the artifacts themselves, with an S3 store this node's work area.
    public var root: URL { storage.workArea }

    /// Which family of artifact.
    public enum Family: String, Sendable, CaseIterable {
        case originals, submissions, feedback, comments, annotations
    }

    /// Where the artifacts are kept.
    public let storage: any ArtifactStorage

    public init(storage: any ArtifactStorage) {
        self.storage = storage
    }

    /// Artifacts on disk under `root`, in the state directory `stateRoot` (by default `root`'s parent).
    public init(root: URL, stateRoot: URL? = nil) {
        self.init(storage: DiskArtifactStorage(root: root, stateRoot: stateRoot ?? root.deletingLastPathComponent()))
    }

    public static func == (lhs: ArtifactStore, rhs: ArtifactStore) -> Bool {
        lhs.root == rhs.root && lhs.storage.description == rhs.storage.description
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

    /// A temporary path in the local directory beside `relative` (created if needed), for
    /// writers that produce a file themselves; finish with `commit(temporary:to:)`.
    public func temporaryPath(for relative: String) throws -> String {
        try LocalFiles.temporaryPath(for: path(relative))
    }

    /// Creates the local directory `relative` will live in.
    public func prepareDirectory(for relative: String) throws {
        try LocalFiles.makeParent(of: path(relative))
    }

    /// Makes the complete local file `source` (a staged upload) the artifact `relative`, durably.
    public func place(_ source: String, at relative: String) throws {
        try storage.place(source, at: relative)
    }

    /// Makes a finished temporary file the artifact `relative`, durably.
    public func commit(temporary: String, to relative: String) throws {
        try storage.place(temporary, at: relative)
    }

    /// Writes `data` as `relative`, durably.
    public func write(_ data: Data, to relative: String) throws {
        try storage.write(data, to: relative)
    }

    /// Makes the file a writer produced at `path(relative)` (the remuxer, the clip encoder) the
    /// artifact: on disk it is already in place (made durable), an S3 store is sent it.
    public func publish(_ relative: String) throws {
        try storage.publish(relative, from: path(relative))
    }

    /// Where a writer that renames into place itself (the encoder) makes `relative` for now,
    /// so that nothing it does touches the artifact until `publish(_:from:)`.
    public func workPath(for relative: String) throws -> String {
        try storage.workPath(for: relative)
    }

    /// Makes `work` (from `workPath(for:)`) the artifact `relative`, durably.
    public func publish(_ relative: String, from work: String) throws {
        try storage.publish(relative, from: work)
    }

    /// Drops a `workPath(for:)` file that was not published (a missing one is not an error).
    public func discardWork(_ work: String) {
        unlink(work)
    }

    /// Removes an artifact; a missing one is not an error. While a backup runs nothing is
    /// removed from disk (`BackupLock`), and an object the store would not remove stays: an
    /// orphan for the sweep either way.
    public func remove(_ relative: String) {
        storage.remove(relative)
    }

    /// True when the artifact is there (with an S3 store: the store answers that it has it).
    public func exists(_ relative: String) -> Bool {
        storage.exists(relative)
    }

    /// A file with the artifact's bytes for a reader that takes a path (`release()` it).
    /// - Throws: `StoreError.io` when there is no such artifact (or `relative` could name
    ///   something outside the store).
    public func localCopy(of relative: String) throws -> LocalArtifact {
        try storage.localCopy(of: relative)
    }

    /// `localCopy(of:)` for async callers (the export): nil when the artifact is gone or its
    /// path could name something outside the store.
    public func readableCopy(of relative: String) async throws -> LocalArtifact? {
        try await storage.readableCopy(of: relative)
    }

    /// The months any family has artifacts in, and the files outside them: what the sweep
    /// walks, a month at a time.
    public func layout() throws -> ArtifactLayout {
        try storage.layout()
    }

    /// The artifacts of one family's month (`family/YYYY/MM/…`) with their sizes and times.
    public func entries(family: Family, month: String) throws -> [ArtifactEntry] {
        try storage.list(prefix: family.rawValue + "/" + month + "/")
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

    /// The local files of one family's month directory (`family/YYYY/MM/…`, temporary files
    /// and links included, links not followed).
    public func files(family: Family, month: String) -> [String] {
        ((try? DiskArtifactStorage(root: root, stateRoot: root).list(prefix: family.rawValue + "/" + month + "/")) ?? []).map(\.path)
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
}
