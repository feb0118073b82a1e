import Foundation
import Testing
@testable import TilawaCore

@Suite("Student messages")
struct StudentMessagesTests {
    @Test("The received message names the configured turnaround, not a fixed 48 hours", arguments: [
        (48.0, "within 48 hours."), (24.0, "within 24 hours."), (1.0, "within 1 hour."), (36.5, "within 36.5 hours."),
    ])
    func turnaround(hours: Double, ending: String) {
        let message = StudentMessages.recordingReceived(week: 8, title: "Al-Fil", late: false, coachName: "Ustadha Maryam", feedbackDueHours: hours).text
        #expect(message.hasPrefix("We received your recording for week 8 (Al-Fil)."))
        #expect(message.hasSuffix(ending))
        #expect(message.contains("Ustadha Maryam will reply"))
    }

    @Test("A late recording says so and promises a reply without a time")
    func late() {
        let message = StudentMessages.recordingReceived(week: 3, title: "Al-Asr", late: true, coachName: nil, feedbackDueHours: 24).text
        #expect(message.contains("marked late") && !message.contains("hours"))
    }

    @Test("Turnarounds in words")
    func turnarounds() {
        #expect(StudentMessages.hours(72) == "72 hours" && StudentMessages.hours(1) == "1 hour")
        #expect(StudentMessages.days(5) == "5 business days" && StudentMessages.days(1) == "1 business day")
    }
}

/// Every message key, rendered in English from its parameters, is the sentence Tilawa sent
/// before keys existed (the literals below are those sentences, copied from the code and tests
/// of that time) — and survives the trip through JSON an app makes.
@Suite("Message keys: the English rendering of every key is the message")
struct MessageKeyTests {
    static let newYork = TimeZone(identifier: "America/New_York")!
    static let jakarta = TimeZone(identifier: "Asia/Jakarta")!
    /// Friday 6 November 2026, 23:59 EST.
    static let due = Date(timeIntervalSince1970: 1_794_027_540)

    static let cases: [(EventMessage, String)] = [
        (StudentMessages.recordingReceived(week: 8, title: "Al-Fil", late: false, coachName: "Ustadha Maryam", feedbackDueHours: 48),
         "We received your recording for week 8 (Al-Fil). Ustadha Maryam will reply within 48 hours."),
        (StudentMessages.recordingReceived(week: 8, title: nil, late: true, coachName: nil, feedbackDueHours: 48),
         "We received your recording for week 8. It arrived after the deadline and is marked late; Your coach will still reply."),
        (StudentMessages.eocReceived(businessDays: 5, expectedBy: due, zone: newYork),
         "We received your end-of-course assessment. Results take up to 5 business days; expect them by Friday 6 November."),
        (StudentMessages.assessmentReceived(placed: false, placementDueHours: 72),
         "We received your placement assessment. You'll be placed in a level within 72 hours."),
        (StudentMessages.assessmentReceived(placed: true, placementDueHours: 72), "We received your placement assessment; a coach will listen to it."),
        (StudentMessages.submissionFailed(week: 3, title: "Al-Asr"),
         "We couldn't process your recording for Week 3 (Al-Asr) — please record it again; it did not use an attempt."),
        (StudentMessages.submissionFailed(week: nil, title: "End-of-course assessment"),
         "We couldn't process your recording for end-of-course assessment — please record it again; it did not use an attempt."),
        (StudentMessages.submissionRefused(week: 12, title: "Al-Humazah", code: "no_speech", detail: "We couldn't hear any recitation; record again closer to the phone."),
         "Your recording for week 12 (Al-Humazah) was not accepted: We couldn't hear any recitation; record again closer to the phone."),
        (StudentMessages.submissionWithdrawn(week: 3, title: "Al-Asr"), "You withdrew your recording for week 3 (Al-Asr); the attempt it used is yours again."),
        (StaffMessages.submissionWithdrawn(student: "Aisha Rahman", week: 3, title: "Al-Asr"),
         "Aisha Rahman withdrew their recording for week 3 (Al-Asr); it is no longer in your queue."),
        (StudentMessages.placementReady(levelName: "Foundations", coachName: "Ustadh Yusuf"), "You've been placed in Foundations; your coach is Ustadh Yusuf."),
        (StudentMessages.enrolled(levelName: "Foundations", coachName: "Ustadh Yusuf", semesterName: "Fall 2026", weekOneUnlocks: due, zone: newYork),
         "Welcome to Foundations for Fall 2026: your coach is Ustadh Yusuf; week 1 unlocks Friday 6 November, 23:59 EST."),
        (StudentMessages.weekUnlocked(week: 9, title: "Al-Ma'un", passage: "Al-Ma'un 107:1-7", due: due, zone: newYork),
         "Week 9 is here! Your new lesson is ready: Al-Ma'un (Al-Ma'un 107:1-7), due Friday 6 November, 23:59 EST."),
        (StudentMessages.weekUnlocked(week: 9, title: "Al-Ma'un", passage: nil, due: due, zone: jakarta),
         "Week 9 is here! Your new lesson is ready: Al-Ma'un, due Saturday 7 November, 11:59 WIB."),
        (StudentMessages.deadlineReminder(week: 9, title: "Title 9", due: due, zone: newYork, daysLeft: 2),
         "Week 9 (Title 9) is due in 2 days, Friday 6 November, 23:59 EST, and nothing is submitted for it yet."),
        (StudentMessages.deadlineReminder(week: 9, title: "Title 9", due: due, zone: newYork, daysLeft: 1),
         "Week 9 (Title 9) is due tomorrow, Friday 6 November, 23:59 EST, and nothing is submitted for it yet."),
        (StudentMessages.deadlineReminder(week: 9, title: "Title 9", due: due, zone: newYork, daysLeft: 0),
         "Week 9 (Title 9) is due today, Friday 6 November, 23:59 EST, and nothing is submitted for it yet."),
        (StudentMessages.eocAvailable(levelName: "Foundations", closes: due, zone: newYork),
         "Your end-of-course assessment for Foundations is open: record it before Friday 6 November, 23:59 EST."),
        (StudentMessages.eocResultsReady(levelName: "Foundations", result: .pass), "Your EOC results are in: congratulations! You've graduated Foundations."),
        (StudentMessages.eocResultsReady(levelName: "Foundations", result: .retake),
         "Your EOC results are in: your coach has asked for a retake of the Foundations assessment; you may record it once more."),
        (StudentMessages.feedbackReady(week: 8, title: "Al-Fil", coachName: "Ustadha Maryam"), "Ustadha Maryam replied to your recording for week 8 (Al-Fil)."),
        (StudentMessages.feedbackReady(week: nil, title: "Placement assessment", coachName: nil), "Your coach replied to your recording for placement assessment."),
        (StudentMessages.annotationAdded(coachName: "Ustadha Maryam", surah: 104, ayah: 3, atSeconds: 12.5, week: 8, title: "Al-Fil", kind: "wrong_word",
                                         text: "Listen again.", clipSeconds: nil),
         "Ustadha Maryam marked ayah 104:3 in your recording for week 8 (Al-Fil) (wrong word): “Listen again.”"),
        (StudentMessages.annotationAdded(coachName: nil, surah: nil, ayah: nil, atSeconds: 75.9, week: 8, title: "Al-Fil", kind: "tajweed",
                                         text: "", clipSeconds: 12),
         "Your coach marked at 1:15 in your recording for week 8 (Al-Fil) (tajweed): a 0:12 voice message"),
        (StaffMessages.questionAsked(student: "Aisha Rahman", week: 8, title: "Al-Fil", text: "Is my madd right?", clipSeconds: 12),
         "Aisha Rahman asked about your reply to their recording for week 8 (Al-Fil): “Is my madd right?” (a 0:12 voice message)"),
        (StudentMessages.questionAnswered(coachName: "Ustadha Maryam", week: 8, title: "Al-Fil", text: "Yes.", clipSeconds: nil),
         "Ustadha Maryam answered your question about week 8 (Al-Fil): “Yes.”"),
        (StudentMessages.announcement(title: "No class", body: "Closed on Friday."), "No class: Closed on Friday."),
        (StaffMessages.readyForReview(student: "Aisha Rahman", week: 8, title: "Al-Fil", due: due, zone: newYork),
         "Aisha Rahman's recording for week 8 (Al-Fil) is ready for your review; please reply by Friday 6 November, 23:59 EST."),
        (StaffMessages.feedbackOverdue(student: "Aisha Rahman", week: 8, title: "Al-Fil", coachName: "Ustadha Maryam", due: due, zone: newYork),
         "Aisha Rahman's recording for week 8 (Al-Fil) is still waiting for Ustadha Maryam's reply; it was due Friday 6 November, 23:59 EST."),
        (StaffMessages.feedbackOverdue(student: "Aisha Rahman", week: 8, title: "Al-Fil", coachName: nil, due: due, zone: newYork),
         "Aisha Rahman's recording for week 8 (Al-Fil) is still waiting for a coach's reply; it was due Friday 6 November, 23:59 EST."),
        (StaffMessages.fallingBehind(student: "Student S1001", missed: 2, fromWeek: 1, toWeek: 2, sinceStart: true),
         "Student S1001 has nothing in after 2 weeks — a call from you now is what brings new students back."),
        (StaffMessages.fallingBehind(student: "Omar", missed: 2, fromWeek: 4, toWeek: 5, sinceStart: false),
         "Omar has missed 2 deadlines in a row (weeks 4–5) — a call from you may bring them back."),
        (StaffMessages.coachDigest(awaiting: 3, overdue: 1, openQuestions: 2, oldestDue: due, zone: newYork),
         "Your queue: 3 recordings awaiting your reply (1 overdue) and 2 open questions; the oldest was due Friday 6 November, 23:59 EST."),
        (StaffMessages.coachDigest(awaiting: 1, overdue: 0, openQuestions: 0, oldestDue: due, zone: newYork),
         "Your queue: 1 recording awaiting your reply; the oldest is due Friday 6 November, 23:59 EST."),
        (StaffMessages.coachDigest(awaiting: 0, overdue: 0, openQuestions: 1, oldestDue: nil, zone: newYork), "Your queue: 1 open question."),
        (StaffMessages.storageLow(freeBytes: 4_402_341_478, totalBytes: 48_318_382_080, minimumFreeBytes: 268_435_456),
         "The state directory's disk has 4.1 GiB free (9 %); uploads are refused below 256 MiB."),
        (StudentMessages.deadlineExtended(week: 11, title: "Al-Qadr", due: due, zone: newYork),
         "Your deadline for week 11 (Al-Qadr) has moved: you can now record it until Friday 6 November, 23:59 EST."),
        (StudentMessages.deadlineExtended(week: nil, title: "End-of-course assessment", due: due, zone: jakarta),
         "Your deadline for the end-of-course assessment has moved: you can now record it until Saturday 7 November, 11:59 WIB."),
        (StudentMessages.attemptsGranted(count: 1, expiresAt: due, zone: newYork),
         "You have 1 extra recording beyond your weekly limit, to use once your attempts are used, until Friday 6 November, 23:59 EST."),
        (StudentMessages.attemptsGranted(count: 3, expiresAt: due, zone: newYork),
         "You have 3 extra recordings beyond your weekly limit, to use once your attempts are used, until Friday 6 November, 23:59 EST."),
        (StudentMessages.feedbackMoved(week: 12, title: "Al-Humazah", coachName: "Ustadha Maryam"),
         "A reply filed under your recording for week 12 (Al-Humazah) was meant for another student and has been moved; Ustadha Maryam will reply to your recording."),
        (StudentMessages.feedbackMoved(week: 12, title: "Al-Humazah", coachName: nil),
         "A reply filed under your recording for week 12 (Al-Humazah) was meant for another student and has been moved; your coach will reply to your recording."),
        (StudentMessages.enrolmentChanged("coach", coachName: "Ustadh Karim"),
         "Your coach is now Ustadh Karim; your recordings and replies so far stay as they are."),
        (StudentMessages.enrolmentChanged("level", levelName: "Level 2"), "You are now in Level 2; the weeks you have recorded still count."),
        (StudentMessages.enrolmentChanged("paused"), "Your enrolment is paused: nothing is due and no reminders come until it resumes."),
        (StudentMessages.enrolmentChanged("resumed"), "Welcome back: your enrolment is active again."),
        (StudentMessages.enrolmentChanged("left"), "Your enrolment this semester has ended; your recordings and replies stay in your history."),
        (StaffMessages.coverStarted(coveredCoachName: "Ustadha Maryam", until: due, zone: newYork),
         "You are covering Ustadha Maryam's students until Friday 6 November, 23:59 EST: their recordings are in your queue."),
        (StaffMessages.deskLinkRequested(expiresAt: due, zone: newYork),
         "You asked for a new link to the coach's desk: it signs you in once, until Friday 6 November, 23:59 EST."),
        (StaffMessages.erasureRequested(student: "Aisha Rahman", due: due, zone: newYork),
         "Aisha Rahman asked for their recordings and personal data to be erased; unless they cancel, it is carried out on Friday 6 November, 23:59 EST."),
    ]

    @Test("each key renders today's sentence, and again from the JSON an app receives")
    func englishEqualsMessage() throws {
        for (message, expected) in Self.cases {
            #expect(message.text == expected, "\(message.key)")
            let json = try JSONEncoder().encode(message.params)
            let decoded = try JSONDecoder().decode([String: MessageValue].self, from: json)
            #expect(EnglishMessages.render(key: message.key, params: decoded) == expected, "\(message.key) from JSON")
        }
        #expect(Set(Self.cases.map(\.0.key)) == Set(EnglishMessages.keys), "every key has a case here, and no case an unknown key")
    }

    @Test("an unknown key or missing parameters render without a crash")
    func unknown() {
        #expect(EnglishMessages.render(key: "no_such_key", params: [:]) == "")
        #expect(EnglishMessages.render(key: "deadline_reminder", params: [:]).hasPrefix("Week 0"))
    }
}
