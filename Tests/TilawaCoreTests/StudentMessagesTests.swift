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

    @Test("Turnarounds in words")
    func turnarounds() {
        #expect(StudentMessages.hours(72) == "72 hours" && StudentMessages.hours(1) == "1 hour")
        #expect(StudentMessages.days(5) == "5 business days" && StudentMessages.days(1) == "1 business day")
    }

    @Test("Coaches and operations are told whose recording is overdue, which week, and since when")
    func overdue() {
        #expect(StaffMessages.feedbackOverdue(student: "Aisha Rahman", what: "week 8 (Al-Fil)", coachName: "Ustadha Maryam",
                                              due: "Tuesday 10 March, 14:00 EDT")
            == "Aisha Rahman's recording for week 8 (Al-Fil) is still waiting for Ustadha Maryam's reply; it was due Tuesday 10 March, 14:00 EDT.")
    }
}
