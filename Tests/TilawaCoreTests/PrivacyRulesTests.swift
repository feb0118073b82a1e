import Foundation
import Testing
@testable import TilawaCore

/// Consent and erasure in the rules (DESIGN §16): who is a minor, who may consent, and where
/// a missing consent or a pending erasure stands among the admission's refusals.
@Suite("Privacy rules: age, who may consent, and consent_required / erasure_pending in the admission")
struct PrivacyRulesTests {
    static let terms = ConsentTerms(required: true, policyURL: "https://example.org/policy", policyVersion: nil, adultAge: 18)

    @Test("age by the programme zone's calendar: a birthday counts from its local midnight, 29 February from 1 March",
          arguments: [
              ("2008-11-22", "2026-11-22T05:00:00Z", 18),  // midnight in New York on the 18th birthday
              ("2008-11-22", "2026-11-22T04:59:59Z", 17),  // a second before: still the 21st there
              ("2008-02-29", "2026-02-28T17:00:00Z", 17),
              ("2008-02-29", "2026-03-01T17:00:00Z", 18),
              ("2010-06-01", "2026-11-22T15:00:00Z", 16),
          ])
    func age(_ born: String, _ at: String, _ expected: Int) throws {
        let date = try #require(LocalDate(born))
        #expect(date.age(at: utc(at), in: newYork) == expected)
    }

    @Test("real dates only: no 30 February, no 29 February of a common year")
    func realDates() throws {
        #expect(try #require(LocalDate("2008-02-29")).isReal)
        #expect(!(try #require(LocalDate("2027-02-29")).isReal))
        #expect(!(try #require(LocalDate("2026-02-30")).isReal))
        #expect(LocalDate("2026-13-01") == nil)
    }

    @Test("who may consent: a minor through a named guardian, a guardian always named, any age when the date is unknown; the policy's version first")
    func refusals() throws {
        let now = utc("2026-11-22T15:00:00Z")
        let minor = LocalDate("2012-04-23"), adult = LocalDate("1990-01-01")
        func refusal(_ version: String, _ giver: ConsentGiver, _ name: String?, _ born: LocalDate?, terms: ConsentTerms = Self.terms) -> PrivacyRefusal? {
            terms.refusal(version: version, givenBy: giver, guardianName: name, dateOfBirth: born, now: now, timeZone: newYork)
        }
        #expect(refusal("v1", .student, nil, minor) == .guardianRequired(adultAge: 18))
        #expect(refusal("v1", .guardian, "  ", minor) == .guardianRequired(adultAge: 18))
        #expect(refusal("v1", .guardian, nil, adult) == .guardianRequired(adultAge: 18), "a guardian's consent names the guardian")
        #expect(refusal("v1", .guardian, "Amina Rahman", minor) == nil)
        #expect(refusal("v1", .student, nil, adult) == nil)
        #expect(refusal("v1", .student, nil, nil) == nil, "no date of birth: no one is taken for a minor")
        var versioned = Self.terms
        versioned.policyVersion = "2026-09"
        #expect(refusal("2026-01", .student, nil, minor, terms: versioned) == .policyVersionMismatch(given: "2026-01", current: "2026-09"))
        #expect(versioned.counts(version: "2026-09") && !versioned.counts(version: "2026-01") && Self.terms.counts(version: "anything"))
        var younger = Self.terms
        younger.adultAge = 14
        #expect(refusal("v1", .student, nil, minor, terms: younger) == nil, "14 is an adult under adult_age 14")
        #expect(ConsentTerms.isText("2026-09") && !ConsentTerms.isText("") && !ConsentTerms.isText("   ") && !ConsentTerms.isText("a\nb"))
        #expect(!ConsentTerms.isText(String(repeating: "x", count: ConsentTerms.maximumTextLength + 1)))
    }

    @Test("""
        a missing consent and a pending erasure refuse every slot, the placement assessment too; a pause is said first, \
        an erasure before a consent; with neither the recording is admitted
        """)
    func admissionOrder() throws {
        let calendar = try autumnSemester()
        let now = calendar.unlock(week: 12).addingTimeInterval(3_600)
        let requested = now.addingTimeInterval(-86_400)
        let erasure = PrivacyStanding.ErasureDates(requestedAt: requested, dueAt: requested.addingTimeInterval(30 * 86_400))
        func rules(_ privacy: PrivacyStanding, standing: RuleOverrides.Standing = .active) throws -> SubmissionRules {
            try SubmissionRules(calendar: calendar, overrides: RuleOverrides(standing: standing), privacy: privacy)
        }
        let missing = PrivacyStanding(consentMissing: Self.terms)
        let consentRequired = RuleRefusal.consentRequired(policyURL: "https://example.org/policy", policyVersion: nil)
        for slot in [Slot.week(12), .assessment] {
            #expect(try rules(missing).admit(slot: slot, history: [], now: now) == .failure(consentRequired), "\(slot)")
            #expect(try rules(PrivacyStanding(consentMissing: Self.terms, erasureRequested: erasure)).admit(slot: slot, history: [], now: now)
                    == .failure(.erasurePending(requestedAt: erasure.requestedAt, dueAt: erasure.dueAt)), "\(slot)")
        }
        #expect(try rules(missing, standing: .paused).admit(slot: .week(12), history: [], now: now) == .failure(.enrolmentPaused))
        #expect(try rules(missing, standing: .paused).admit(slot: .assessment, history: [], now: now) == .failure(consentRequired),
                "a paused student's assessment is refused for the consent, not the pause")
        #expect(try rules(.clear).admit(slot: .week(12), history: [], now: now).isSuccess)
        #expect(try rules(.clear, standing: .paused).admit(slot: .week(12), history: [], now: now) == .failure(.enrolmentPaused))
    }

    @Test("the refusals' codes and sentences: the policy's address, the day asked in the student's zone")
    func messages() {
        let consent = RuleRefusal.consentRequired(policyURL: "https://example.org/policy", policyVersion: "2026-09")
        #expect(consent.code == "consent_required")
        #expect(consent.message(in: newYork) == "Before you record, please read and accept the recording policy at https://example.org/policy.")
        let erasure = RuleRefusal.erasurePending(requestedAt: utc("2026-11-22T15:00:00Z"), dueAt: utc("2026-12-22T15:00:00Z"))
        #expect(erasure.code == "erasure_pending")
        #expect(erasure.message(in: newYork) == "You asked on Sunday 22 November for your recordings to be erased; cancel that request to record again.")
        #expect(PrivacyRefusal.guardianRequired(adultAge: 18).code == "guardian_required")
        #expect(PrivacyRefusal.policyVersionMismatch(given: "a", current: "b").message.contains("\"b\""))
        #expect([PrivacyRefusal.noConsent("S1"), .noErasureRequest("S1"), .unknownStudent("S1")].map(\.code)
                == ["no_consent", "no_erasure_request", "unknown_student"])
    }
}

private extension Result {
    var isSuccess: Bool {
        if case .success = self { true } else { false }
    }
}
