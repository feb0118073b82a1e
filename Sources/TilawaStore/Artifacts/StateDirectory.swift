import Foundation

/// The layout of the state directory (DESIGN §6):
///
/// ```
/// <state_dir>/tilawa.sqlite      database (WAL)
/// <state_dir>/staging/           uploads being received and analysed
/// <state_dir>/uploads/           resumable uploads' bytes, kept across restarts
/// <state_dir>/artifacts/         originals/, submissions/, feedback/, comments/ by year and month
/// <state_dir>/dropbox/           coach drop folders (default location)
/// <state_dir>/secrets/           generated keys when none are configured
/// <state_dir>/photos/            coaches' photos, by content, copied at import
/// ```
public struct StateDirectory: Sendable, Equatable {
    /// The directory itself.
    public let root: URL
    /// The artifacts, wherever `artifacts.url` keeps them (by default in `artifacts/`).
    public let artifactStore: ArtifactStore

    /// A state directory at `path` (relative paths are taken from the working directory), its
    /// artifacts in `artifacts/` or in the storage `artifactStorage` makes with `artifacts/` as
    /// its work area.
    public init(path: String, artifactStorage: ((_ workArea: URL) -> any ArtifactStorage)? = nil) {
        let root = URL(fileURLWithPath: path).standardizedFileURL
        let artifacts = root.appendingPathComponent("artifacts")
        self.root = root
        artifactStore = ArtifactStore(storage: artifactStorage?(artifacts) ?? DiskArtifactStorage(root: artifacts, stateRoot: root))
    }

    public static func == (lhs: StateDirectory, rhs: StateDirectory) -> Bool {
        lhs.root == rhs.root && lhs.artifactStore == rhs.artifactStore
    }

    /// Where coaches' photos are kept (`photos/<sha256>.<ext>`): beside the artifacts, in the
    /// state directory's `photos/` or in the S3 store with them.
    public var photoStore: ArtifactStore { ArtifactStore(storage: artifactStore.storage.companion(root: root)) }

    public var databasePath: String { root.appendingPathComponent("tilawa.sqlite").path }
    public var staging: URL { root.appendingPathComponent("staging") }
    public var artifacts: URL { root.appendingPathComponent("artifacts") }
    public var secrets: URL { root.appendingPathComponent("secrets") }
    /// Coaches' photos, named by content (`<sha256>.<ext>`), copied at import.
    public var photos: URL { root.appendingPathComponent("photos") }

    /// Creates the directories that do not exist yet (owner and group only).
    public func prepare() throws {
        for directory in [root, staging, artifacts, secrets, root.appendingPathComponent("uploads")] {
            do {
                try FileManager.default.createDirectory(
                    at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
            } catch {
                throw StoreError.io("cannot create \(directory.path): \(error.localizedDescription)")
            }
        }
    }

    /// A new, unique path in `staging/` with the given extension.
    public func newStagingPath(extension ext: String) -> String {
        let safe = ext.filter { $0.isASCII && ($0.isLetter || $0.isNumber) }.prefix(8)
        let name = UUID().uuidString.lowercased() + (safe.isEmpty ? ".upload" : ".\(safe)")
        return staging.appendingPathComponent(name).path
    }
}
