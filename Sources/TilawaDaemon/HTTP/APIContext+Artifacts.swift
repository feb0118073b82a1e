import TilawaStore

extension APIContext {
    /// Removes artifacts a committed change no longer names (after the commit: a crash in
    /// between leaves orphans the sweep removes), on the work pool, whose threads may wait for
    /// an S3 store's answer.
    func removeArtifacts(_ paths: [String]) async {
        guard !paths.isEmpty else { return }
        let store = runtime.stateDirectory.artifactStore
        try? await pool.run { for path in paths { store.remove(path) } }
    }
}
