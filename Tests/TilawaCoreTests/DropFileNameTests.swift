import Foundation
import Testing
@testable import TilawaCore

@Suite("DropFileName")
struct DropFileNameTests {
    @Test("parses reply names", arguments: [
        ("S1042_w08.m4a", "S1042", Slot.week(8), "S1042_w08", "m4a"),
        ("S1042_W08.M4A", "S1042", .week(8), "S1042_W08", "M4A"),
        ("s1042_w8_take2.mp3", "s1042", .week(8), "s1042_w8_take2", "mp3"),
        ("S1_w01.webm", "S1", .week(1), "S1_w01", "webm"),
        ("S1_w15.flac", "S1", .week(15), "S1_w15", "flac"),
        ("S1042_eoc_pass.m4a", "S1042", .eoc, "S1042_eoc_pass", "m4a"),
        ("S1042_EOC_RETAKE.wav", "S1042", .eoc, "S1042_EOC_RETAKE", "wav"),
        ("S1042_assessment.ogg", "S1042", .assessment, "S1042_assessment", "ogg"),
        ("S1042_Assessment.OGG", "S1042", .assessment, "S1042_Assessment", "OGG"),
        ("x_eoc_pass_final.m4a", "x", .eoc, "x_eoc_pass_final", "m4a"),
        ("ab_wx_w08.m4a", "ab_wx", .week(8), "ab_wx_w08", "m4a"),
        ("a-b_c_w15.flac", "a-b_c", .week(15), "a-b_c_w15", "flac"),
        ("S1042_w08_take.2.m4a", "S1042", .week(8), "S1042_w08_take.2", "m4a"),
        ("S1042_w08_.m4a", "S1042", .week(8), "S1042_w08_", "m4a"),
        ("S1042_w08_reply for Ali.m4a", "S1042", .week(8), "S1042_w08_reply for Ali", "m4a"),
        // The last slot-shaped part wins: the student here is "S1042_w08".
        ("S1042_w08_w09.m4a", "S1042_w08", .week(9), "S1042_w08_w09", "m4a"),
        // A slot-shaped part after the slot whose week does not exist is skipped.
        ("S1042_w08_w99.m4a", "S1042", .week(8), "S1042_w08_w99", "m4a"),
    ])
    func parses(_ name: String, _ student: String, _ slot: Slot, _ stem: String, _ ext: String) throws {
        let parsed = try DropFileName(parsing: name)
        #expect(parsed.studentID == id(student))
        #expect(parsed.slot == slot)
        #expect(parsed.stem == stem)
        #expect(parsed.fileExtension == ext)
        #expect(parsed.name == name)
    }

    @Test("an end-of-course reply carries its result", arguments: [
        ("S1042_eoc_pass.m4a", EOCResult.pass), ("S1042_Eoc_Retake.mp3", .retake), ("S1042_eoc_pass_v2.m4a", .pass),
    ])
    func eocResult(_ name: String, _ result: EOCResult) throws {
        #expect(try DropFileName(parsing: name).result == result)
        #expect(try DropFileName(parsing: "S1042_w08.m4a").result == nil)
    }

    @Test("an end-of-course reply without pass or retake is refused with names the coach can use", arguments: [
        ("S1042_eoc.m4a", "S1042_eoc_pass.m4a", "S1042_eoc_retake.m4a"),
        ("S1042_EOC_final.wav", "S1042_eoc_pass.wav", "S1042_eoc_retake.wav"),
    ])
    func eocWithoutResult(_ name: String, _ pass: String, _ retake: String) {
        #expect {
            try DropFileName(parsing: name)
        } throws: { error in
            guard let refusal = error as? DropFileNameRefusal else { return false }
            return refusal.code == "eoc_result_missing" && refusal.reason.contains(pass) && refusal.reason.contains(retake)
                && !refusal.reason.contains("\n")
        }
    }

    @Test("known students disambiguate ids that contain _w<N>")
    func knownStudents() throws {
        let name = "ab_w1_x_w08.m4a"
        let byDefault = try DropFileName(parsing: name)
        #expect(byDefault.studentID == id("ab_w1_x") && byDefault.slot == .week(8))
        let known = try DropFileName(parsing: name) { $0 == id("ab") }
        #expect(known.studentID == id("ab") && known.slot == .week(1))
        let nobody = try DropFileName(parsing: name) { _ in false }
        #expect(nobody.studentID == id("ab_w1_x"))
    }

    @Test("week range follows the semester")
    func weekCount() throws {
        #expect(try DropFileName(parsing: "S1_w16.m4a", weekCount: 16).slot == .week(16))
        #expect(throws: DropFileNameRefusal.invalidWeek(name: "S1_w13.m4a", week: "13", weekCount: 12)) {
            try DropFileName(parsing: "S1_w13.m4a", weekCount: 12)
        }
    }

    @Test("refuses names that do not parse", arguments: [
        ("S1042.m4a", "no_slot"),
        ("S1042_week8.m4a", "no_slot"),
        ("S1042_w8x.m4a", "no_slot"),
        ("S1042_w-8.m4a", "no_slot"),
        ("S1042-w08.m4a", "no_slot"),
        ("w08.m4a", "no_slot"),
        ("S1042_w08", "no_extension"),
        ("S1042_w08.", "no_extension"),
        ("S1042_w16.m4a", "invalid_week"),
        ("S1042_w0.m4a", "invalid_week"),
        ("S1042_w00.m4a", "invalid_week"),
        ("S1042_w008.m4a", "invalid_week"),
        ("S1042_w123456789012345678901234567890.m4a", "invalid_week"),
        ("_w08.m4a", "invalid_student_id"),
        ("ä1_w08.m4a", "invalid_student_id"),
        ("a/../x_w08.m4a", "invalid_student_id"),
        ("S 1042_w08.m4a", "invalid_student_id"),
        (String(repeating: "a", count: 65) + "_w08.m4a", "invalid_student_id"),
        ("S1042_w08.txt", "notes_file"),
        ("S1042_w08.TXT", "notes_file"),
        (".S1042_w08.m4a", "temporary_file"),
        ("S1042_w08.m4a.part", "temporary_file"),
        ("~$S1042_w08.m4a", "temporary_file"),
    ])
    func refuses(_ name: String, _ code: String) {
        do {
            let parsed = try DropFileName(parsing: name)
            Issue.record("parsed \(name) as \(parsed.studentID) \(parsed.slot)")
        } catch {
            #expect(error.code == code)
            #expect(!error.reason.contains("\n") && error.reason.hasSuffix("."))
            #expect(error.description == "\(code): \(error.reason)")
        }
    }

    @Test("64-character student ids are fine")
    func longestID() throws {
        let student = String(repeating: "a", count: 64)
        #expect(try DropFileName(parsing: student + "_w08.m4a").studentID == id(student))
    }

    @Test("reasons are one plain sentence a coach can act on", arguments: [
        (DropFileNameRefusal.noSlot(name: "S1042.m4a"), "The file name S1042.m4a does not say which week: name it like S1042_w08.m4a."),
        (.noSlot(name: "Ali reply.m4a"), "The file name Ali reply.m4a does not say which week: name it like S1042_w08.m4a."),
        (.noSlot(name: "S7.MP3"), "The file name S7.MP3 does not say which week: name it like S7_w08.MP3."),
        (.noExtension(name: "S1042_w08"), "The file name S1042_w08 has no extension: name it like S1042_w08.m4a."),
        (.invalidWeek(name: "S1042_w16.m4a", week: "16", weekCount: 15),
         "The file name S1042_w16.m4a names week 16, but weeks run from 1 to 15: name it like S1042_w08.m4a."),
        (.invalidStudentID(name: "ä1_w08.m4a"),
         "The file name ä1_w08.m4a does not start with a valid student id (letters, digits, \"_\" or \"-\"): name it like S1042_w08.m4a."),
    ])
    func reasons(_ refusal: DropFileNameRefusal, _ sentence: String) {
        #expect(refusal.reason == sentence)
    }

    @Test("a name with a newline still gives a one-line reason")
    func hostileName() {
        #expect(throws: DropFileNameRefusal.self) { try DropFileName(parsing: "S1\nrm -rf.m4a") }
        #expect(!DropFileNameRefusal.noSlot(name: "S1\nx.m4a").reason.contains("\n"))
    }

    @Test("temporary names", arguments: [
        (".hidden.m4a", true), (".syncthing.S1_w08.m4a.tmp", true), ("~$notes.docx", true),
        ("S1_w08.m4a.tmp", true), ("S1_w08.m4a.TMP", true), ("S1_w08.m4a.part", true),
        ("S1_w08.m4a.crdownload", true), ("S1_w08.m4a.partial", true), ("S1_w08.m4a.filepart", true),
        ("S1_w08.syncthing.m4a", true), (".", true),
        ("S1_w08.m4a", false), ("S1_w08.txt", false), ("part.m4a", false), ("S1_w08_part.m4a", false),
        ("tmp_w08.m4a", false), ("S1_w08.partition.m4a", false), ("syncthing_w08.m4a", false), ("~S1_w08.m4a", false),
    ])
    func temporary(_ name: String, _ expected: Bool) {
        #expect(DropFileName.isTemporary(name) == expected)
    }

    @Test("sidecar notes")
    func sidecar() throws {
        let reply = try DropFileName(parsing: "S1042_W08.M4A")
        #expect(reply.sidecarName == "S1042_W08.txt")
        #expect(reply.isSidecar(named: "S1042_W08.txt"))
        #expect(reply.isSidecar(named: "S1042_W08.TXT"))
        #expect(!reply.isSidecar(named: "s1042_w08.txt"))
        #expect(!reply.isSidecar(named: "S1042_W08.M4A.txt"))
        #expect(!reply.isSidecar(named: "S1042_W08.txt.part"))
        #expect(try DropFileName(parsing: "s1042_w8_take2.mp3").sidecarName == "s1042_w8_take2.txt")
        #expect(DropFileName.isSidecar("anything.txt"))
        #expect(!DropFileName.isSidecar(".txt"))
        #expect(!DropFileName.isSidecar("txt"))
        #expect(!DropFileName.isSidecar("S1_w08.m4a"))
    }
}
