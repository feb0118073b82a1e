import Foundation

/// Decides when a file in a drop folder is complete enough to take (DESIGN §5).
///
/// A plain state machine fed with observations, tested alone: a file is ready once it is
/// known complete (closed after writing or moved in, as inotify reports; or found at start
/// or by the polling fallback, where no such event exists) and its size and modification
/// time have not changed for the settle time. A file that changes starts its wait again.
struct SettleTracker {
    struct Observation: Equatable, Sendable {
        var size: Int64
        var modified: Date
        /// The entry's own kind (`S_IFREG`, `S_IFLNK`, …), inode and link count: a file
        /// swapped for another or linked elsewhere is a change too.
        var kind: mode_t = S_IFREG
        var inode: UInt64 = 0
        var links: UInt64 = 1

        init(size: Int64, modified: Date) {
            self.size = size
            self.modified = modified
        }

        /// What `fstatat(…, AT_SYMLINK_NOFOLLOW)` said of the entry itself.
        init(_ info: stat) {
            self.init(size: Int64(info.st_size),
                      modified: Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9))
            kind = info.st_mode & S_IFMT
            inode = UInt64(info.st_ino)
            links = UInt64(info.st_nlink)
        }

        /// A regular file with one link: the only kind of entry that can be a reply.
        var isPlainFile: Bool { kind == S_IFREG && links == 1 }
    }

    private struct Candidate {
        var observation: Observation
        var stableSince: ContinuousClock.Instant
        var complete: Bool
    }

    let settle: Duration
    private var candidates: [String: Candidate] = [:]

    init(settle: Duration) {
        self.settle = settle
    }

    /// Records the latest inotify news of `path`: closed after writing or moved in
    /// (`complete`), or written to (not complete — a writer has it open: a slow writer that
    /// created the file empty, closed it, and is now appending). Events arrive in order, so
    /// the last one says where the file stands.
    mutating func mark(_ path: String, complete: Bool) {
        pendingComplete[path] = complete
    }

    /// The last event of each file since the last observation.
    private var pendingComplete: [String: Bool] = [:]

    /// Feeds one scan: every file now present with what it looks like. Returns the paths
    /// ready to take, and forgets files that vanished.
    ///
    /// - Parameter assumeComplete: true for files that can have no completion event: all of
    ///   them when polling, those found at start or in a folder just put under watch.
    mutating func observe(_ files: [String: Observation], now: ContinuousClock.Instant,
                          assumeComplete: (String) -> Bool) -> [String] {
        for path in candidates.keys where files[path] == nil { candidates[path] = nil }
        defer { pendingComplete.removeAll() }
        var ready: [String] = []
        for (path, observation) in files {
            let event = pendingComplete[path]
            let completeNow = assumeComplete(path) || event == true
            if var candidate = candidates[path] {
                if candidate.observation != observation {
                    // Changed since last seen: complete only if closed again since.
                    candidate.observation = observation
                    candidate.stableSince = now
                    candidate.complete = completeNow
                } else if let event {
                    candidate.complete = event
                }
                candidates[path] = candidate
            } else {
                candidates[path] = Candidate(observation: observation, stableSince: now, complete: completeNow)
            }
            if let candidate = candidates[path], candidate.complete, now - candidate.stableSince >= settle {
                ready.append(path)
            }
        }
        return ready.sorted()
    }

    /// Forgets a file that was taken (moved away).
    mutating func forget(_ path: String) {
        candidates[path] = nil
        pendingComplete[path] = nil
    }
}
