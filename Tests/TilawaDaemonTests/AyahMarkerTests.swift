import Foundation
import GRDB
import HTTPTypes
import HummingbirdTesting
import Testing
import TilawaAudio
import TilawaCore
import TilawaQuran
@_spi(Testing) import TilawaStore
import TilawaTestSupport
@testable import TilawaDaemon

/// The ayah markers (DESIGN §9): the passage's units, the alignment of a real recording, and
/// the submission's `ayahs` gaining `start_seconds`/`end_seconds` after its encode job.
@Suite("Ayah markers")
struct AyahMarkerTests {
    /// The recitation fixture's truth, from the manifest: (surah, ayah) → where its speech starts.
    private func recitationTruth() throws -> (ayahs: String, starts: [(surah: Int, ayah: Int, start: Double)]) {
        let data = try Data(contentsOf: Fixtures.directory.appendingPathComponent("manifest.json"))
        let manifest = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let fixtures = try #require(manifest["fixtures"] as? [[String: Any]])
        let entry = try #require(fixtures.first { $0["file"] as? String == "recitation_fatiha_16k.wav" })
        let starts = try #require(entry["ayah_starts"] as? [[String: Any]]).compactMap { start -> (Int, Int, Double)? in
            guard let surah = start["surah"] as? Int, let ayah = start["ayah"] as? Int, let at = start["start_seconds"] as? Double else { return nil }
            return (surah, ayah, at)
        }
        return (try #require(entry["ayahs"] as? String), starts)
    }

    @Test("the units: an optional isti'adha, an optional basmala before a surah but not before Al-Fatiha or At-Tawba, ayah 1 without Tanzil's basmala")
    func plan() throws {
        let fatiha = AyahMarking.plan(ayahs: "1:1-7")
        #expect(fatiha.map(\.ayah) == [0, 1, 2, 3, 4, 5, 6, 7])
        #expect(fatiha.map(\.preface) == [.istiadha, nil, nil, nil, nil, nil, nil, nil])
        #expect(fatiha.map(\.unit.optional) == [true] + Array(repeating: false, count: 7))
        #expect(fatiha[1].unit.letters == 19)

        let two = AyahMarking.plan(ayahs: "112:1-4; 9:1-2")
        #expect(two.map(\.preface) == [.istiadha, .basmala, nil, nil, nil, nil, nil, nil])
        #expect(two.map(\.surah) == [112, 112, 112, 112, 112, 112, 9, 9])
        // قُلْ هُوَ ٱللَّهُ أَحَدٌ without the basmala Tanzil writes before it.
        #expect(two[2].unit.letters == QuranText.letterCount(of: "قُلْ هُوَ ٱللَّهُ أَحَدٌ"))
        #expect(AyahMarking.plan(ayahs: "115:1").isEmpty)
    }

    @Test("a real recitation (isti'adha, Al-Fatiha, a pause inside 1:7, noise at 20 dB SNR) gets each ayah's start within 300 ms")
    func realRecitation() throws {
        let truth = try recitationTruth()
        let processed = try AudioProcessor().process(path: Fixtures.directory.appendingPathComponent("recitation_fatiha_16k.wav").path)
        let (markers, _) = AyahMarking.markers(ayahs: truth.ayahs, segments: processed.speechSegments)
        #expect(markers.unavailableReason == nil)
        #expect(markers.markers.map(\.ayah) == truth.starts.map(\.ayah))
        for (marker, expected) in zip(markers.markers, truth.starts) {
            #expect(abs(marker.startSeconds - expected.start) <= 0.3, "\(marker.surah):\(marker.ayah) at \(marker.startSeconds), truth \(expected.start)")
            #expect(marker.endSeconds > marker.startSeconds)
        }
        // The same recording is not Al-Ikhlas and An-Nas.
        #expect(AyahMarking.markers(ayahs: "112:1-4; 114:1-6", segments: processed.speechSegments).markers.unavailableReason != nil)
    }

    @Test("passages whose pauses fit this Al-Fatiha as well as its own get no markers: its sound does not say their letters; its own passage keeps them")
    func wrongPassageHeard() throws {
        let truth = try recitationTruth()
        let processed = try AudioProcessor().process(path: Fixtures.directory.appendingPathComponent("recitation_fatiha_16k.wav").path,
                                                     soundFrames: true)
        let sound = try #require(processed.soundFrames)
        let own = AyahMarking.markers(ayahs: truth.ayahs, segments: processed.speechSegments, sound: sound)
        #expect(own.markers.unavailableReason == nil)
        #expect(own.markers.markers.map(\.ayah) == truth.starts.map(\.ayah))
        #expect((own.alignment.soundScore ?? 0) > 3, "\(String(describing: own.alignment.soundScore))")
        // Six or eight ayahs of Al-Baqara, Al-A'raf and Al-Anfal: by pauses alone each is given markers.
        for passage in ["2:43-48", "7:10-17", "7:58-63", "7:181-186", "8:1-6"] {
            #expect(AyahMarking.markers(ayahs: passage, segments: processed.speechSegments).markers.unavailableReason == nil,
                    "\(passage) no longer fits by its pauses: choose another")
            let heard = AyahMarking.markers(ayahs: passage, segments: processed.speechSegments, sound: sound)
            #expect(heard.markers.unavailableReason == AlignmentRefusal.soundMismatch.code, "\(passage)")
            #expect(heard.markers.markers.isEmpty && heard.markers.notFound.isEmpty)
            #expect(heard.alignment.soundScore.map { $0 < 1 } == true, "\(passage): \(String(describing: heard.alignment.soundScore))")
        }
    }

    @Test("the bar the sound must clear rises with the letters placed")
    func soundBar() {
        #expect(AyahMarking.soundAccepts(score: 0.8, letters: 60))
        #expect(!AyahMarking.soundAccepts(score: 0.6, letters: 60))
        #expect(!AyahMarking.soundAccepts(score: 0.8, letters: 120))
        #expect(AyahMarking.soundAccepts(score: 1.1, letters: 120))
        #expect(!AyahMarking.soundAccepts(score: 2.3, letters: 238))
        #expect(AyahMarking.soundAccepts(score: 2.6, letters: 900))
    }

    @Test("each opening says which it is: the isti'adha and a basmala recited before 112:1 are ayah 0 entries named by `opening`, with their own text; the ayahs name none")
    func openingsNamed() throws {
        let markers = AyahMarkers(ayahs: "112:1-4", markers: [
            .init(surah: 112, ayah: 0, preface: .istiadha, startSeconds: 0, endSeconds: 3),
            .init(surah: 112, ayah: 0, preface: .basmala, startSeconds: 3.5, endSeconds: 6),
        ] + (1...4).map { .init(surah: 112, ayah: $0, startSeconds: Double(5 + 2 * $0), endSeconds: Double(6 + 2 * $0)) })
        let (ayahs, reason) = AyahResource.list("112:1-4", markers: markers)
        #expect(reason == nil)
        #expect(ayahs.map(\.opening) == [.istiadha, .basmala, nil, nil, nil, nil])
        #expect(ayahs[0].text == AyahMarking.istiadha)
        #expect(ayahs[1].text == QuranText.uthmani.displayText(surah: 112, ayah: 1)?.basmala)
        let json = try #require(try JSONSerialization.jsonObject(with: APIJSON.encoder().encode(ayahs)) as? [[String: Any]])
        #expect(json.map { $0["opening"] as? String } == ["istiadha", "basmala", nil, nil, nil, nil])
    }

    @Test("an ayah run into the one before it is listed in its place without times (the one before covers both); markers stored before `notFound` read as none")
    func notFoundListed() throws {
        let markers = AyahMarkers(ayahs: "112:1-4", markers: [
            .init(surah: 112, ayah: 1, startSeconds: 0.5, endSeconds: 2), .init(surah: 112, ayah: 2, startSeconds: 2.6, endSeconds: 6),
            .init(surah: 112, ayah: 4, startSeconds: 6.6, endSeconds: 8),
        ], notFound: [.init(surah: 112, ayah: 3)])
        let (ayahs, reason) = AyahResource.list("112:1-4", markers: markers)
        #expect(reason == nil)
        #expect(ayahs.map(\.ayah) == [1, 2, 3, 4])
        #expect(ayahs.map(\.startSeconds) == [0.5, 2.6, nil, 6.6])
        #expect(ayahs[2].text == QuranText.uthmani.ayah(surah: 112, ayah: 3))
        let stored = try JSONDecoder().decode(AyahMarkers.self, from: Data(#"{"ayahs": "112:1-4", "markers": []}"#.utf8))
        #expect(stored.notFound.isEmpty)
        let again = try JSONDecoder().decode(AyahMarkers.self, from: JSONEncoder().encode(markers))
        #expect(again == markers)
    }

    @Test("after encoding, GET /v1/submissions/{id} gives each ayah its times, the isti'adha as ayah 0; another passage gets a reason and no times")
    func submissionRoute() async throws {
        let truth = try recitationTruth()
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        // Week 12 of S1001's level recites Al-Fatiha for this test; S1003's level (L2) recites 7:10-17.
        try await daemon.runtime.database.engine.write { db in
            try db.execute(sql: "UPDATE curriculumWeek SET ayahs = '1:1-7' WHERE levelId = 'L1' AND week = 12")
            try db.execute(sql: "UPDATE curriculumWeek SET ayahs = '7:10-17' WHERE levelId = 'L2' AND week = 12")
        }
        try await daemon.application().live { client in
            let upload = try await daemon.request(port: client.port, method: .post, "/v1/students/S1001/weeks/12/submissions",
                                                  headers: try await daemon.headers(.student, "S1001", [.contentType: "audio/wav"]),
                                                  body: Data(buffer: try TestDaemon.fixture("recitation_fatiha_16k.wav")))
            #expect(upload.status == .created)
            let id = try #require(upload.json?["id"] as? String)
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: id)?.state == .awaitingFeedback })
            let read = try await client.execute(uri: "/v1/submissions/\(id)", method: .get, headers: try await daemon.headers(.coach, "C01"))
            #expect(read.status == .ok)
            #expect(read.json?["ayahs_unavailable_reason"] is NSNull)
            let ayahs = try #require(read.json?["ayahs"] as? [[String: Any]])
            #expect(ayahs.map { $0["ayah"] as? Int } == truth.starts.map(\.ayah))
            #expect(ayahs.first?["text"] as? String == AyahMarking.istiadha)
            #expect(ayahs.first?["opening"] as? String == "istiadha")
            #expect(ayahs.dropFirst().allSatisfy { $0["opening"] == nil }, "an ayah other than an opening says it is one")
            #expect(ayahs.dropFirst().first?["text"] as? String == QuranText.uthmani.ayah(surah: 1, ayah: 1))
            for (ayah, expected) in zip(ayahs, truth.starts) {
                let start = try #require(ayah["start_seconds"] as? Double)
                let end = try #require(ayah["end_seconds"] as? Double)
                #expect(abs(start - expected.start) <= 0.3)
                #expect(end > start)
            }
            let row = try #require(try await daemon.runtime.database.submission(id: id))
            // Bounded: the detector's segments, a few per second at most.
            let segments = try #require(row.speechSegments)
            #expect(!segments.isEmpty && Double(segments.count) <= row.analysis.durationSeconds * 2.5)

            // Another passage for the same recording, eight ayahs of Al-A'raf whose pauses fit it as well as
            // Al-Fatiha's: the encode job hears that it does not say them, and no entry has times.
            let other = try await daemon.request(port: client.port, method: .post, "/v1/students/S1003/weeks/12/submissions",
                                                 headers: try await daemon.headers(.student, "S1003", [.contentType: "audio/wav"]),
                                                 body: Data(buffer: try TestDaemon.fixture("recitation_fatiha_16k.wav")))
            let otherId = try #require(other.json?["id"] as? String)
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: otherId)?.state == .awaitingFeedback })
            let refused = try await client.execute(uri: "/v1/submissions/\(otherId)", method: .get, headers: try await daemon.headers(.coach, "C01"))
            #expect(refused.json?["ayahs_unavailable_reason"] as? String == "sound_mismatch")
            let plain = try #require(refused.json?["ayahs"] as? [[String: Any]])
            #expect(plain.count == 8 && plain.allSatisfy { $0["start_seconds"] == nil && $0["end_seconds"] == nil })
        }
    }
}
