import Testing
@testable import TilawaCore

@Suite("Student messages")
struct StudentMessagesTests {
    @Test("The received message names the configured turnaround, not a fixed 48 hours", arguments: [
        (48.0, "within 48 hours."), (24.0, "within 24 hours."), (1.0, "within 1 hour."), (36.5, "within 36.5 hours."),
    ])
    func turnaround(hours: Double, ending: String) {
        let message = StudentMessages.recordingReceived("Week 8 — Al-Fil", late: false, coachName: "Ustadha Maryam", feedbackDueHours: hours)
        #expect(message.hasPrefix("We received your recording for Week 8 — Al-Fil."))
        #expect(message.hasSuffix(ending))
        #expect(message.contains("Ustadha Maryam will reply"))
    }

    @Test("A late recording says so and promises a reply without a time")
    func late() {
        let message = StudentMessages.recordingReceived("Week 3 — Al-Asr", late: true, coachName: nil, feedbackDueHours: 24)
        #expect(message.contains("marked late") && !message.contains("hours"))
    }

    @Test("The overdue message uses the same turnaround")
    func overdue() {
        #expect(StudentMessages.feedbackOverdue("Week 8 — Al-Fil", turnaround: StudentMessages.hours(72)).contains("longer than 72 hours"))
        #expect(StudentMessages.feedbackOverdue("the end-of-course assessment", turnaround: StudentMessages.days(5))
            .contains("longer than 5 business days"))
    }
}
