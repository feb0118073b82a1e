import TilawaStore

extension APIContext {
    /// Removes artifacts a committed change no longer names (after the commit: a crash in
    /// between leaves orphans the sweep removes). From an S3 store on the work pool, whose
    /// threads may wait for the store's answer; from disk here (an unlink each).
    func removeArtifacts(_ paths: [String]) async {
        guard !paths.isEmpty else { return }
        let store = runtime.stateDirectory.artifactStore
        if store.remote == nil {
            for path in paths { store.remove(path) }
        } else {
            try? await pool.run { for path in paths { store.remove(path) } }
        }
    }
}
