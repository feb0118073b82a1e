import Foundation
import Synchronization

/// One file in `staging/` and the only thing that may delete it or hand it over.
///
/// An upload, a dropped reply or a captured recording is written to a staged file; from then
/// on exactly one of three things happens to it, once: it is placed into the artifact store
/// (`place(into:at:)`), it is discarded (`discard()`), or — when its last owner lets go
/// without doing either, on any path, an error included — it is deleted. A staged file can
/// also be adopted by path (`init(adopting:)`), the shape an upload that lives across
/// requests and restarts (resumable uploads) needs.
///
/// `Sendable` on its own: the one piece of mutable state, whether the file is still here,
/// lives in a `Mutex`; the path never changes.
public final class StagedFile: Sendable {
    /// Where the file is while staged. Readers may open it; only this object moves or deletes it.
    public let path: String
    private let present = Mutex(true)

    /// Takes ownership of the file at `path` (which need not exist yet: the writer creates it).
    public init(adopting path: String) {
        self.path = path
    }

    deinit {
        if present.withLock({ $0 }) { unlink(path) }
    }

    /// Whether the file is still this object's to place or discard.
    public var isStaged: Bool { present.withLock { $0 } }

    /// Moves the file durably to `relative` in `store` (fsync, rename, directory fsync).
    /// On failure the file stays staged and is deleted with its owner.
    public func place(into store: ArtifactStore, at relative: String) throws {
        try present.withLock { present in
            guard present else { throw StoreError.io("\(path) was already placed or discarded") }
            try store.place(path, at: relative)
            present = false
        }
    }

    /// Deletes the file now.
    public func discard() {
        let wasPresent = present.withLock { present in
            defer { present = false }
            return present
        }
        if wasPresent { unlink(path) }
    }
}

extension StateDirectory {
    /// A new staged file (not created yet) with a unique name and the given extension.
    public func newStagedFile(extension ext: String) -> StagedFile {
        StagedFile(adopting: newStagingPath(extension: ext))
    }
}
