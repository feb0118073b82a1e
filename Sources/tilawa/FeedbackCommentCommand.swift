import ArgumentParser
import Foundation
import TilawaAudio
import TilawaCore
import TilawaDaemon
import TilawaStore

/// `tilawa feedback comment --coach ID --feedback ID [--audio FILE] [TEXT]`: a coach answers in
/// a reply's thread, in text, with a voice message (1 s to 3 min), or both.
struct FeedbackCommentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "comment",
        abstract: "Answer a student's question in the thread under a reply.",
        discussion: "Exit status: 0 answered, 64 usage, 65 the voice message was refused for its audio, 77 no such reply of one of your students, or it is still being encoded."
    )

    @Option(help: "The coach's id.")
    var coach: String

    @Option(help: "The reply (feedback) id the thread is under.")
    var feedback: String

    @Option(help: "A voice message to answer with (1 s to 3 min; any format a recording may be).")
    var audio: String?

    @Argument(help: "The answer, 1 to 2000 characters (optional with --audio).")
    var text: String = ""

    @Flag(help: "Print the comment as JSON on stdout.")
    var json = false

    @OptionGroup var config: ConfigurationOptions

    func validate() throws {
        guard Identifier.isValid(coach), Identifier.isValid(feedback) else {
            throw ValidationError("--coach and --feedback take ids (letters, digits, \"_\" or \"-\", at most 64).")
        }
        let count = text.trimmingCharacters(in: .whitespacesAndNewlines).count
        guard ((audio == nil ? 1 : 0)...CommentRecord.maximumLength).contains(count) else {
            throw ValidationError("The answer has 1 to \(CommentRecord.maximumLength) characters; this one has \(count).")
        }
    }

    func run() async throws {
        let runtime = try config.runtime()
        var clip: CommentRecord.Clip?
        if let audio {
            let refusal: AppDatabase.CommentRefusal?
            do {
                refusal = try await runtime.database.commentRefusal(feedbackId: feedback, author: .coach, authorId: coach, now: runtime.clock())
            } catch {
                throw CommandLineOutput.fail(error)
            }
            if let refusal { throw Self.fail(refusal, feedback: feedback) }
            let fileExtension = URL(fileURLWithPath: audio).pathExtension
            let staged = runtime.stateDirectory.newStagedFile(extension: fileExtension)
            do {
                try FileManager.default.copyItem(atPath: audio, toPath: staged.path)
            } catch {
                staged.discard()
                throw CommandLineOutput.fail(code: "io_error", message: "cannot copy \(audio) to staging: \(error.localizedDescription)",
                                             exit: ExitStatus.noInput)
            }
            let encoded: CommentClipEncoder.Outcome
            do {
                encoded = try runtime.commentClips.encode(staged: staged, now: runtime.clock())
            } catch {
                throw CommandLineOutput.fail(error)
            }
            switch encoded {
            case let .encoded(encoded): clip = encoded
            case let .rejected(verdict):
                let primary = verdict.primaryRejection ?? .unreadable(detail: "")
                throw CommandLineOutput.fail(code: primary.code, message: primary.message, exit: ExitStatus.dataRejected)
            }
        }
        let outcome: Result<CommentRecord, AppDatabase.CommentRefusal>
        do {
            outcome = try await runtime.database.addComment(
                feedbackId: feedback, author: .coach, authorId: coach, text: text.trimmingCharacters(in: .whitespacesAndNewlines),
                clip: clip, policy: runtime.policy, now: runtime.clock())
        } catch {
            if let clip { runtime.commentClips.discard(clip) }
            throw CommandLineOutput.fail(error)
        }
        if case .failure = outcome, let clip { runtime.commentClips.discard(clip) }
        switch outcome {
        case let .success(comment):
            if json {
                try CommandLineOutput.printJSON(CommentResource(comment))
            } else {
                CommandLineOutput.printRows([("comment", comment.id), ("reply", comment.feedbackId), ("student", comment.studentId)])
            }
        case let .failure(refusal):
            throw Self.fail(refusal, feedback: feedback)
        }
    }

    /// Prints the refusal's line; the error to throw.
    static func fail(_ refusal: AppDatabase.CommentRefusal, feedback: String) -> any Error {
        switch refusal {
        case .notFound:
            CommandLineOutput.fail(code: "not_found", message: "There is no reply \(feedback) to a student of yours.", exit: ExitStatus.refusedByRule)
        case .notReady:
            CommandLineOutput.fail(code: "not_ready", message: "The reply is still being encoded; try again in a minute.", exit: ExitStatus.refusedByRule)
        case let .tooManyComments(limit, retryAt):
            // Not asked for here (the command line has no per-minute limit); named for completeness.
            CommandLineOutput.fail(code: "too_many_comments", message: "More than \(limit) comments in a minute; try again at \(retryAt.formatted(.iso8601)).",
                                   exit: ExitStatus.attemptLimit)
        }
    }
}
