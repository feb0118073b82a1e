import Foundation
import Testing
@_spi(Testing) import TilawaStore

/// A folder of its own under the system's temporary directory.
private struct Scratch {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("tilawa-uploads-\(UUID().uuidString)")
    init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    func remove() { try? FileManager.default.removeItem(at: url) }
}

@Suite("uploads/: the bytes of resumable uploads")
struct UploadStagingAreaTests {
    @Test("prepare cuts an uncounted tail, refuses a file shorter than its offset, and never follows a link")
    func prepare() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let area = UploadStagingArea(root: URL(fileURLWithPath: scratch.path("uploads")))
        try area.prepareDirectory()
        try area.prepare(id: "upl_a", offset: 0)
        try Data(repeating: 7, count: 1_000).write(to: URL(fileURLWithPath: area.path(for: "upl_a")))
        try area.prepare(id: "upl_a", offset: 600)
        #expect(try Data(contentsOf: URL(fileURLWithPath: area.path(for: "upl_a"))).count == 600)
        #expect(throws: StoreError.self) { try area.prepare(id: "upl_a", offset: 601) }
        // A link in the place of an upload's file is never written through.
        let outside = scratch.path("outside")
        try Data("keep".utf8).write(to: URL(fileURLWithPath: outside))
        try FileManager.default.createSymbolicLink(atPath: area.path(for: "upl_b"), withDestinationPath: outside)
        #expect(throws: StoreError.self) { try area.prepare(id: "upl_b", offset: 0) }
        #expect(try String(contentsOfFile: outside, encoding: .utf8) == "keep")
    }

    @Test("the sweep keeps unfinished uploads' files and recent strays, removes old strays, links and folders without following them")
    func sweep() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let area = UploadStagingArea(root: URL(fileURLWithPath: scratch.path("uploads")))
        try area.prepareDirectory()
        for id in ["upl_keep", "upl_stray", "upl_new"] { try area.prepare(id: id, offset: 0) }
        let outside = scratch.path("outside")
        try Data("keep".utf8).write(to: URL(fileURLWithPath: outside))
        try FileManager.default.createSymbolicLink(atPath: area.root.appendingPathComponent("link.part").path, withDestinationPath: outside)
        try FileManager.default.createDirectory(atPath: area.root.appendingPathComponent("folder").path, withIntermediateDirectories: false)
        let old = Date().addingTimeInterval(-7_200)
        for name in ["upl_keep.part", "upl_stray.part", "folder"] {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: area.root.appendingPathComponent(name).path)
        }
        var times = [timespec(tv_sec: Int(old.timeIntervalSince1970), tv_nsec: 0), timespec(tv_sec: Int(old.timeIntervalSince1970), tv_nsec: 0)]
        utimensat(AT_FDCWD, area.root.appendingPathComponent("link.part").path, &times, AT_SYMLINK_NOFOLLOW)
        let removed = area.sweep(keeping: ["upl_keep"], changedBefore: Date().addingTimeInterval(-3_600))
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: area.root.path))
        #expect(left == ["upl_keep.part", "upl_new.part"])
        #expect(removed == 3)
        #expect(FileManager.default.fileExists(atPath: outside))
    }
}
