import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

@Suite("Audio an iPhone can play: the MP4 and CAF variants on the audio routes")
struct AudioVariantRouteTests {
    @Test("chosen by ?format= or Accept, each with its own ETag, Range and 304, Vary: Accept; made on demand when missing; kept by the sweep; removed with a withdrawal")
    func variants() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let created = try await client.execute(uri: "/v1/students/S1001/weeks/12/submissions", method: .post,
                                                   headers: try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"]),
                                                   body: try TestDaemon.fixture("speech.opus"))
            let id = try #require(created.json?["id"] as? String)
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: id)?.state == .awaitingFeedback })
            let row = try #require(try await daemon.runtime.database.submission(id: id))
            let store = daemon.runtime.stateDirectory.artifactStore
            let audio = try #require(row.audioPath)
            let variants = ArtifactStore.variants(ofAudio: audio)
            #expect(variants.count == 2 && variants.allSatisfy { FileManager.default.fileExists(atPath: store.path($0)) },
                    "the encode job made both")
            let shown = try await client.execute(uri: "/v1/submissions/\(id)", method: .get, headers: try await daemon.headers(.student, "S1001"))
            #expect(shown.json?["playback_gain_db"] as? Double == row.outputGainDB)

            let student = try await daemon.headers(.student, "S1001")
            func get(_ query: String = "", _ extra: HTTPFields = [:]) async throws -> LiveAnswer {
                var headers = student
                for field in extra { headers[field.name] = field.value }
                return try await client.execute(uri: "/v1/submissions/\(id)/audio\(query)", method: .get, headers: headers)
            }
            let ogg = try await get()
            let mp4 = try await get("?format=mp4")
            let caf = try await get("", [.accept: "audio/x-caf, audio/ogg;q=0.5"])
            let preferOgg = try await get("", [.accept: "audio/mp4;q=0.4, audio/ogg"])
            #expect(ogg.headers[.contentType] == "audio/ogg" && preferOgg.headers[.contentType] == "audio/ogg")
            #expect(mp4.headers[.contentType] == "audio/mp4" && caf.headers[.contentType] == "audio/x-caf")
            #expect([ogg, mp4, caf].allSatisfy { $0.status == .ok && $0.headers[.vary] == "Accept" })
            let tags = [ogg, mp4, caf].compactMap { $0.headers[.eTag] }
            #expect(Set(tags).count == 3, "\(tags)")
            #expect(Data(buffer: mp4.body) == (try Data(contentsOf: URL(fileURLWithPath: store.path(variants[0])))))
            #expect(Data(buffer: mp4.body).range(of: Data("ftyp".utf8)) != nil && Data(buffer: caf.body).prefix(4) == Data("caff".utf8))

            let part = try await get("?format=mp4", [.range: "bytes=0-99"])
            #expect(part.status == .partialContent && part.body.readableBytes == 100)
            #expect(part.headers[.contentRange] == "bytes 0-99/\(mp4.body.readableBytes)")
            let cached = try await get("?format=mp4", [.ifNoneMatch: try #require(mp4.headers[.eTag])])
            #expect(cached.status == .notModified)
            let stale = try await get("?format=caf", [.ifNoneMatch: try #require(mp4.headers[.eTag])])
            #expect(stale.status == .ok, "another variant's ETag does not match")
            let unknown = try await get("?format=wav")
            #expect(unknown.status == .badRequest && unknown.json?["code"] as? String == "invalid_format")

            // A recording from before variants existed: made when first asked, then kept.
            try FileManager.default.removeItem(atPath: store.path(variants[1]))
            let again = try await get("?format=caf")
            #expect(again.status == .ok && Data(buffer: again.body) == Data(buffer: caf.body))
            #expect(FileManager.default.fileExists(atPath: store.path(variants[1])))

            // An original sent as M4A is an original, not a variant: the exact lookup finds its row.
            let m4a = try await client.execute(uri: "/v1/students/S1002/weeks/12/submissions", method: .post,
                                               headers: try await daemon.headers(.student, "S1002", [.contentType: "audio/mp4"]),
                                               body: try TestDaemon.fixture("speech.m4a"))
            let m4aId = try #require(m4a.json?["id"] as? String)
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: m4aId)?.state == .awaitingFeedback })
            let m4aRow = try #require(try await daemon.runtime.database.submission(id: m4aId))
            let m4aOriginal = try #require(m4aRow.originalPath)
            #expect(m4aOriginal.hasSuffix(".m4a") && ArtifactStore.audioPath(ofVariant: m4aOriginal) == nil)
            #expect(try daemon.runtime.database.isArtifactReferenced(m4aOriginal))
            #expect(try daemon.runtime.database.isArtifactReferenced(variants[0]), "a variant is referenced through its Ogg")

            // The full sweep keeps them (and removes a variant-looking file no recording owns).
            let stray = store.path(audio.replacingOccurrences(of: id, with: "sub_NOBODY").replacingOccurrences(of: ".opus", with: ".m4a"))
            try Data("x".utf8).write(to: URL(fileURLWithPath: stray))
            let before = try await daemon.runtime.database.engine.read { db in try AppDatabase.artifactBytes(db) }
            let report = try ArtifactSweeper(database: daemon.runtime.database, stateDirectory: daemon.runtime.stateDirectory)
                .sweep(now: Date().addingTimeInterval(86_400), originalsRetentionDays: nil)
            #expect(variants.allSatisfy { FileManager.default.fileExists(atPath: store.path($0)) })
            #expect(!FileManager.default.fileExists(atPath: stray))
            #expect(FileManager.default.fileExists(atPath: store.path(m4aOriginal)))
            #expect(report.missing.isEmpty)
            // status counts their bytes as the sweep found them.
            let sizes = try (variants + ArtifactStore.variants(ofAudio: m4aRow.audioPath ?? "")).map {
                try #require(FileManager.default.attributesOfItem(atPath: store.path($0))[.size] as? Int)
            }
            #expect(report.variantBytes == Int64(sizes.reduce(0, +)))
            let after = try await daemon.runtime.database.engine.read { db in try AppDatabase.artifactBytes(db) }
            #expect(after - before == report.variantBytes)

            // Withdrawn: the variants go with the recording.
            let withdrawn = try await client.execute(uri: "/v1/submissions/\(id)", method: .delete, headers: student)
            #expect(withdrawn.status == .ok)
            #expect(variants.allSatisfy { !FileManager.default.fileExists(atPath: store.path($0)) })
        }
    }
}
