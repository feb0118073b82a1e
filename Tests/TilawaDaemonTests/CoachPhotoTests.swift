import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// DESIGN §14: a coach's `photo` in program.yaml — an image beside the programme file,
/// checked by content, copied into the state directory, served at `/v1/coaches/{id}/photo`.
@Suite("Coach photos: checked by content, copied at import, served with an ETag")
struct CoachPhotoTests {
    /// A 1×1 PNG.
    static let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")!
    /// JPEG's and WebP's signatures in front of filler (the check reads the content's signature).
    static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 0x11, count: 60)
    static let webp = Data("RIFF".utf8) + Data([60, 0, 0, 0]) + Data("WEBPVP8 ".utf8) + Data(repeating: 0x22, count: 48)

    @Test("the content decides: JPEG, PNG and WebP are taken; text named .jpg, a truncated header and more than 2 MiB are not")
    func check() {
        #expect((try? CoachPhoto.check(Self.png).get())?.mediaType == "image/png")
        #expect((try? CoachPhoto.check(Self.jpeg).get())?.fileExtension == "jpg")
        #expect((try? CoachPhoto.check(Self.webp).get())?.mediaType == "image/webp")
        #expect(CoachPhoto.check(Data("<html>not a photo</html> padding padding padding".utf8)) == .failure(.notAnImage))
        #expect(CoachPhoto.check(Data([0xFF, 0xD8, 0xFF])) == .failure(.notAnImage))
        #expect(CoachPhoto.check(Self.jpeg + Data(count: 2 << 20)) == .failure(.tooLarge(bytes: Self.jpeg.count + (2 << 20))))
    }

    /// The sample programme with `photo` lines for C01 and C02, written beside the images.
    func programme(_ state: CommandLineStateFixture, c01: String?, c02: String? = nil) throws -> String {
        var text = try String(contentsOfFile: CommandLineStateFixture.sample("program.yaml"), encoding: .utf8)
        if let c01 { text = text.replacingOccurrences(of: "    places: true\n  - id: C02\n", with: "    places: true\n    photo: \(c01)\n  - id: C02\n") }
        if let c02 { text = text.replacingOccurrences(of: "    email: yusuf.rahman@example.org\n", with: "    email: yusuf.rahman@example.org\n    photo: \(c02)\n") }
        let path = state.scratch.path("program.yaml")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func photoRows(_ state: CommandLineStateFixture) throws -> [String: String] {
        try state.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT id, photoPath FROM coach WHERE photoPath IS NOT NULL")
                .map { ($0["id"] as String, $0["photoPath"] as String) })
        }
    }

    func storedPhotos(_ state: CommandLineStateFixture) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: state.stateDirectory + "/photos")) ?? []).sorted()
    }

    @Test("tilawa roster import: refusals name the line and write nothing; a photo is copied once; a changed one replaces it; a removed one goes")
    func importing() async throws {
        let state = try await CommandLineStateFixture(importSamples: false)
        defer { state.remove() }
        try FileManager.default.createDirectory(atPath: state.scratch.path("photos"), withIntermediateDirectories: true)
        try Self.png.write(to: URL(fileURLWithPath: state.scratch.path("photos/c01.png")))
        try Self.jpeg.write(to: URL(fileURLWithPath: state.scratch.path("photos/c02.jpg")))
        try Data("not an image at all, just words in a file".utf8).write(to: URL(fileURLWithPath: state.scratch.path("photos/fake.jpg")))

        // A hostile or careless file: a link out of the directory, a pipe that would never end.
        try FileManager.default.createSymbolicLink(atPath: state.scratch.path("photos/link.png"), withDestinationPath: state.scratch.path("photos/c01.png"))
        #expect(mkfifo(state.scratch.path("photos/pipe.png"), 0o600) == 0)
        for (photo, code, words) in [("photos/fake.jpg", "invalid_photo", "not a JPEG, PNG or WebP"), ("photos/none.png", "invalid_photo", "is not there"),
                                     ("photos/link.png", "invalid_photo", "not a regular file"), ("photos/pipe.png", "invalid_photo", "not a regular file"),
                                     ("../outside.png", "invalid_value", "beside the programme file"), ("/etc/passwd", "invalid_value", "beside the programme file")] {
            let refused = try await state.run(["roster", "import", try programme(state, c01: photo)])
            #expect(refused.status == 65, "\(photo): \(refused.stderr)")
            #expect(refused.stderr.contains(code) && refused.stderr.contains(words) && refused.stderr.contains("line "), "\(photo): \(refused.stderr)")
        }
        #expect(storedPhotos(state).isEmpty, "nothing written by a refused import")

        let imported = try await state.run(["roster", "import", try programme(state, c01: "photos/c01.png", c02: "photos/c02.jpg")])
        try #require(imported.status == 0, "\(imported.stderr)")
        let rows = try photoRows(state)
        #expect(rows.keys.sorted() == ["C01", "C02"])
        let c01 = try #require(rows["C01"])
        #expect(c01.hasPrefix("photos/") && c01.hasSuffix(".png"))
        #expect(FileManager.default.contents(atPath: state.stateDirectory + "/" + c01) == Self.png)
        #expect(storedPhotos(state).count == 2)
        // Again: nothing changes.
        #expect(try await state.run(["roster", "import", try programme(state, c01: "photos/c01.png", c02: "photos/c02.jpg")]).status == 0)
        #expect(try photoRows(state) == rows && storedPhotos(state).count == 2)
        // C01 gets a new photo (the old file goes), C02 none (its file goes).
        try Self.webp.write(to: URL(fileURLWithPath: state.scratch.path("photos/c01.png")))
        #expect(try await state.run(["roster", "import", try programme(state, c01: "photos/c01.png")]).status == 0)
        let after = try photoRows(state)
        #expect(after.keys.sorted() == ["C01"] && after["C01"] != c01 && after["C01"]?.hasSuffix(".webp") == true)
        #expect(storedPhotos(state).count == 1)
    }

    @Test("GET /v1/coaches/{id}/photo: the image with its ETag, 304 when unchanged, 404 without one, 401 without a token; the timeline links it")
    func serving() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let photo = try CoachPhoto.check(Self.png).get()
        let path = try photo.store(in: daemon.runtime.stateDirectory)
        try await daemon.runtime.database.engine.write { db in
            try db.execute(sql: "UPDATE coach SET photoPath = ?, photoType = ?, photoSHA256 = ? WHERE id = 'C01'",
                           arguments: [path, photo.mediaType, photo.sha256])
        }
        try await daemon.application().live { client in
            let student = try await daemon.headers(.student, "S1001")
            let served = try await client.execute(uri: "/v1/coaches/C01/photo", method: .get, headers: student)
            #expect(served.status == .ok && served.headers[.contentType] == "image/png")
            #expect(Data(buffer: served.body) == Self.png)
            #expect(served.headers[.cacheControl] == "private, no-cache" && served.headers[.xContentTypeOptions] == "nosniff")
            var conditional = student
            conditional[.ifNoneMatch] = try #require(served.headers[.eTag])
            #expect(try await client.execute(uri: "/v1/coaches/C01/photo", method: .get, headers: conditional).status == .notModified)
            #expect(try await client.execute(uri: "/v1/coaches/C01/photo", method: .head, headers: student).status == .ok)
            let none = try await client.execute(uri: "/v1/coaches/C02/photo", method: .get, headers: student)
            #expect(none.status == .notFound && none.json?["code"] as? String == "no_photo")
            let unknown = try await client.execute(uri: "/v1/coaches/C99/photo", method: .get, headers: student)
            #expect(unknown.status == .notFound && unknown.json?["code"] as? String == "unknown_coach")
            #expect(try await client.execute(uri: "/v1/coaches/C01/photo", method: .get).status == .unauthorized)
            let timeline = try await client.execute(uri: "/v1/students/S1001/timeline", method: .get, headers: student)
            #expect((timeline.json?["coach"] as? [String: Any])?["photo_url"] as? String == "/v1/coaches/C01/photo")
            let other = try await client.execute(uri: "/v1/students/S1002/timeline", method: .get, headers: try await daemon.headers(.student, "S1002"))
            #expect((other.json?["coach"] as? [String: Any])?["photo_url"] is NSNull, "C02 has none")
        }
    }
}
