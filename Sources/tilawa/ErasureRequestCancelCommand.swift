import ArgumentParser
import Foundation
import TilawaCore
import TilawaDaemon
import TilawaStore

/// `tilawa erasure-request cancel --student ID [--reason R] [--by NAME] [--json]`: takes back a
/// student's pending erasure request, as `DELETE …/erasure-request` would.
struct ErasureRequestCancelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel a student's pending erasure request.",
        discussion: """
            The request stays as history, cancelled now; the student is not erased and may record \
            again. Audited as erasure_request_cancelled. Exit status: 0, 64 usage, 77 unknown or \
            erased student or no pending request (no_erasure_request), 78 bad configuration.
            """
    )

    @OptionGroup var options: StudentPrivacyOptions

    /// The audit log's reason when `--reason` is not given.
    static let defaultReason = "cancelled with tilawa erasure-request cancel (no reason given)"

    func run() throws {
        let (_, request) = try options.perform { runtime in
            try runtime.database.cancelErasureRequestNow(studentId: options.student, by: options.actor,
                                                         reason: options.reason ?? Self.defaultReason, now: runtime.clock())
        }
        if options.json {
            try CommandLineOutput.printJSON(ErasureRequestSummary(request))
        } else {
            print("erasure request of \(options.student) (asked \(request.requestedAt.formatted(.iso8601))) cancelled")
        }
    }
}
