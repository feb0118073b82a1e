import Foundation
import Testing
@testable import TilawaStore

@Suite("StateDirectoryLock")
struct StateDirectoryLockTests {
    func scratch() throws -> StateDirectory {
        let state = StateDirectory(path: FileManager.default.temporaryDirectory.appendingPathComponent("tilawa-lock-\(UUID().uuidString)").path)
        try state.prepare()
        return state
    }

    @Test("held once; released with its holder; the file names the holder's pid")
    func once() throws {
        let state = try scratch()
        defer { try? FileManager.default.removeItem(at: state.root) }
        var first: StateDirectoryLock? = try StateDirectoryLock.acquire(in: state)
        #expect {
            try StateDirectoryLock.acquire(in: state)
        } throws: { error in
            guard case let .held(_, pid) = error as? StateDirectoryLock.Failure else { return false }
            return pid == getpid()
        }
        first = nil
        _ = first
        // Released once every copy of the descriptor is closed: a process another test spawns
        // at that instant holds a copy (O_CLOEXEC) until its exec, microseconds later.
        var again: StateDirectoryLock?
        for _ in 0..<200 where again == nil {
            again = try? StateDirectoryLock.acquire(in: state)
            if again == nil { usleep(10_000) }
        }
        #expect(again != nil, "the lock was not released with its holder")
    }

    @Test("a lock file that is a link (to a file elsewhere) is not followed: refused, the target untouched", arguments: [false, true])
    func link(hard: Bool) throws {
        let state = try scratch()
        defer { try? FileManager.default.removeItem(at: state.root) }
        let outside = state.root.appendingPathComponent("../tilawa-lock-target-\(UUID().uuidString)").standardizedFileURL.path
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: outside))
        defer { try? FileManager.default.removeItem(atPath: outside) }
        let lock = state.root.appendingPathComponent("tilawa.lock").path
        if hard {
            try FileManager.default.linkItem(atPath: outside, toPath: lock)
        } else {
            try FileManager.default.createSymbolicLink(atPath: lock, withDestinationPath: outside)
        }
        // A symbolic link is not followed (O_NOFOLLOW); a hard link is the same file elsewhere,
        // whose content the pid would overwrite: both are refused.
        #expect(throws: StateDirectoryLock.Failure.self) { try StateDirectoryLock.acquire(in: state) }
        #expect(try String(contentsOfFile: outside, encoding: .utf8) == "precious\n")
    }
}
