import Foundation
import GRDB
import HTTPTypes
import HummingbirdTesting
import Testing
import TilawaCore
import TilawaQuran
@_spi(Testing) import TilawaStore
@testable import TilawaDaemon

/// `ayahs: [{surah, ayah, text}]` beside `passage` on the timeline's weeks and EOC and on a
/// submission (DESIGN §9), read from the sample programme, over a live server.
@Suite("Passages ayah by ayah over HTTP")
struct AyahRouteTests {
    private let quran = QuranText.uthmani

    /// The `ayahs` member of `object` as (surah, ayah, text) triples; nil when it is missing or not that shape.
    private func ayahs(_ object: [String: Any]?) -> [QuranAyah]? {
        guard let list = object?["ayahs"] as? [[String: Any]] else { return nil }
        let parsed = list.compactMap { entry -> QuranAyah? in
            guard entry.count == 3, let surah = entry["surah"] as? Int, let ayah = entry["ayah"] as? Int, let text = entry["text"] as? String
            else { return nil }
            return QuranAyah(surah: surah, ayah: ayah, text: text)
        }
        return parsed.count == list.count ? parsed : nil
    }

    private func expected(_ list: String) throws -> [QuranAyah] {
        quran.ayahs(in: try AyahRange.parseList(list, in: quran))
    }

    @Test("a week's recording (201 body and GET) and the timeline's weeks and EOC carry the passage's ayahs, text verbatim")
    func weekAndTimeline() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            // S1001 is in Foundations (L1); week 12 is Al-Humaza 104:1-9.
            let upload = try await client.execute(uri: "/v1/students/S1001/weeks/12/submissions", method: .post,
                                                  headers: try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"]),
                                                  body: try TestDaemon.fixture("speech.opus"))
            #expect(upload.status == .created)
            #expect(upload.json?["passage"] as? String == "Al-Humaza 104:1-9")
            let humaza = try expected("104:1-9")
            #expect(ayahs(upload.json) == humaza)
            // Verbatim: Tanzil's basmala stays at the start of 104:1 in what is served.
            #expect(ayahs(upload.json)?.first?.text.hasPrefix("بِسْمِ ٱللَّهِ ٱلرَّحْمَـٰنِ ٱلرَّحِيمِ ") == true)

            let id = try #require(upload.json?["id"] as? String)
            let read = try await client.execute(uri: "/v1/submissions/\(id)", method: .get, headers: try await daemon.headers(.coach, "C01"))
            #expect(read.status == .ok)
            #expect(read.json?["passage"] as? String == "Al-Humaza 104:1-9")
            #expect(ayahs(read.json) == humaza)

            let timeline = try await client.execute(uri: "/v1/students/S1001/timeline", method: .get, headers: try await daemon.headers(.student, "S1001"))
            let weeks = try #require(timeline.json?["weeks"] as? [[String: Any]])
            #expect(weeks.count == 15)
            #expect(ayahs(weeks[0]) == (try expected("1:1-7")))
            #expect(ayahs(weeks[1]) == (try expected("114:1-6")))
            #expect(ayahs(weeks[11]) == humaza)
            #expect(weeks[11]["passage"] as? String == "Al-Humaza 104:1-9")
            let eoc = try #require(timeline.json?["eoc"] as? [String: Any])
            let review = try expected("1:1-7; 114:1-6; 113:1-5; 112:1-4; 111:1-5; 110:1-3; 109:1-6; 108:1-3; 107:1-7; 106:1-4; 105:1-5; 104:1-9; 103:1-3")
            #expect(review.count == 67)
            #expect(ayahs(eoc) == review)
            // The sample no longer hand-types the EOC's Arabic: `ayahs` replaces it.
            let passage = try #require(eoc["passage"] as? [String: Any])
            #expect(passage["reference"] as? String == "Al-Fatiha 1:1-7 and An-Nas to Al-Asr (114-103)")
            #expect(!(passage["arabic"] is String))

            // Another level's curriculum: S1003 is in Juz Amma (L2), week 1 Al-'Adiyat.
            let other = try await client.execute(uri: "/v1/students/S1003/timeline", method: .get, headers: try await daemon.headers(.student, "S1003"))
            let otherWeeks = try #require(other.json?["weeks"] as? [[String: Any]])
            #expect(ayahs(otherWeeks.first) == (try expected("100:1-11")))
            #expect(ayahs(other.json?["eoc"] as? [String: Any]) == (try expected("98:1-8")))
        }
    }

    @Test("an EOC recording carries the level's EOC ayahs; a placement assessment has no passage and no ayahs")
    func eocAndAssessment() async throws {
        let daemon = try await TestDaemon(at: EndOfCourseRouteTests.week14)
        defer { daemon.remove() }
        try EndOfCourseRouteTests.seedTwelveWeeks(daemon)
        try await daemon.application().live { client in
            let student = try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"])
            let eoc = try await client.execute(uri: "/v1/students/S1001/weeks/eoc/submissions", method: .post, headers: student,
                                               body: try TestDaemon.fixture("speech.opus"))
            #expect(eoc.status == .created)
            #expect(eoc.json?["passage"] as? String == "Al-Fatiha 1:1-7 and An-Nas to Al-Asr (114-103)")
            #expect(ayahs(eoc.json)?.count == 67)
            #expect(ayahs(eoc.json)?.first == QuranAyah(surah: 1, ayah: 1, text: "بِسْمِ ٱللَّهِ ٱلرَّحْمَـٰنِ ٱلرَّحِيمِ"))

            let unplaced = try await daemon.headers(.student, "S1011", [.contentType: "audio/ogg"])
            let assessment = try await client.execute(uri: "/v1/students/S1011/weeks/assessment/submissions", method: .post, headers: unplaced,
                                                      body: try TestDaemon.fixture("speech.opus"))
            #expect(assessment.status == .created)
            #expect(assessment.json?["passage"] is NSNull)
            #expect(ayahs(assessment.json) == [])
        }
    }

    @Test("a curriculum row without ayahs (before the migration's re-import) or with a list that no longer reads serves none")
    func storedRangesMissingOrDamaged() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.runtime.database.engine.write { db in
            try db.execute(sql: "UPDATE curriculumWeek SET ayahs = NULL WHERE levelId = 'L1' AND week = 1")
            try db.execute(sql: "UPDATE curriculumWeek SET ayahs = '114:1-60' WHERE levelId = 'L1' AND week = 2")
        }
        try await daemon.application().live { client in
            let timeline = try await client.execute(uri: "/v1/students/S1001/timeline", method: .get, headers: try await daemon.headers(.student, "S1001"))
            #expect(timeline.status == .ok)
            let weeks = try #require(timeline.json?["weeks"] as? [[String: Any]])
            #expect(ayahs(weeks[0]) == [])
            #expect(weeks[0]["passage"] as? String == "Al-Fatiha 1:1-7")
            #expect(ayahs(weeks[1]) == [])
            #expect(ayahs(weeks[2]) == (try expected("113:1-5")))
        }
    }
}
