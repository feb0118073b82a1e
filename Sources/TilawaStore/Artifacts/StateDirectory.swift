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
    /// Where artifacts are kept when `artifacts.url` names an S3 store (`artifacts/` is then a
    /// work area); nil keeps them in `artifacts/`.
    public var artifactRemote: (any ArtifactRemote)?

    /// A state directory at `path` (relative paths are taken from the working directory).
    public init(path: String, artifactRemote: (any ArtifactRemote)? = nil) {
        root = URL(fileURLWithPath: path).standardizedFileURL
        self.artifactRemote = artifactRemote
    }

    public static func == (lhs: StateDirectory, rhs: StateDirectory) -> Bool {
        lhs.root == rhs.root && lhs.artifactRemote?.description == rhs.artifactRemote?.description
    }

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

    /// The artifact store inside this directory.
    public var artifactStore: ArtifactStore { ArtifactStore(root: artifacts, remote: artifactRemote) }

    /// A new, unique path in `staging/` with the given extension.
    public func newStagingPath(extension ext: String) -> String {
        let safe = ext.filter { $0.isASCII && ($0.isLetter || $0.isNumber) }.prefix(8)
        let name = UUID().uuidString.lowercased() + (safe.isEmpty ? ".upload" : ".\(safe)")
        return staging.appendingPathComponent(name).path
    }
}
