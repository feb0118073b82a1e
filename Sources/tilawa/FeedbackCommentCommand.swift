import ArgumentParser
import Foundation
import TilawaCore
import TilawaDaemon
import TilawaStore

/// `tilawa feedback comment --coach ID --feedback ID TEXT`: a coach answers in a reply's thread.
struct FeedbackCommentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "comment",
        abstract: "Answer a student's question in the thread under a reply.",
        discussion: "Exit status: 0 answered, 64 usage, 77 no such reply of one of your students, or it is still being encoded."
    )

    @Option(help: "The coach's id.")
    var coach: String

    @Option(help: "The reply (feedback) id the thread is under.")
    var feedback: String

    @Argument(help: "The answer, 1 to 2000 characters.")
    var text: String

    @Flag(help: "Print the comment as JSON on stdout.")
    var json = false

    @OptionGroup var config: ConfigurationOptions

    func validate() throws {
        guard Identifier.isValid(coach), Identifier.isValid(feedback) else {
            throw ValidationError("--coach and --feedback take ids (letters, digits, \"_\" or \"-\", at most 64).")
        }
        let count = text.trimmingCharacters(in: .whitespacesAndNewlines).count
        guard (1...CommentRecord.maximumLength).contains(count) else {
            throw ValidationError("The answer has 1 to \(CommentRecord.maximumLength) characters; this one has \(count).")
        }
    }

    func run() async throws {
        let runtime = try config.runtime()
        let outcome: Result<CommentRecord, AppDatabase.CommentRefusal>
        do {
            outcome = try await runtime.database.addComment(
                feedbackId: feedback, author: .coach, authorId: coach, text: text.trimmingCharacters(in: .whitespacesAndNewlines),
                policy: runtime.policy, now: runtime.clock())
        } catch {
            throw CommandLineOutput.fail(error)
        }
        switch outcome {
        case let .success(comment):
            if json {
                try CommandLineOutput.printJSON(CommentResource(comment))
            } else {
                CommandLineOutput.printRows([("comment", comment.id), ("reply", comment.feedbackId), ("student", comment.studentId)])
            }
        case .failure(.notFound):
            throw CommandLineOutput.fail(code: "not_found", message: "There is no reply \(feedback) to a student of yours.", exit: ExitStatus.refusedByRule)
        case .failure(.notReady):
            throw CommandLineOutput.fail(code: "not_ready", message: "The reply is still being encoded; try again in a minute.", exit: ExitStatus.refusedByRule)
        }
    }
}
