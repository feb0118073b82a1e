import ArgumentParser
import Foundation
import TilawaDaemon
import TilawaStore

/// `tilawa erasure-requests [--json]`: the students' pending erasure requests, the earliest due first (DESIGN §16).
struct ErasureRequestsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "erasure-requests",
        abstract: "List the students' pending erasure requests, the earliest due first.",
        discussion: """
            One line each: the student, when and by whom it was asked, when it falls due. The \
            daemon erases each once due (as tilawa erase --force, audited with the actor \
            "erasure request"); tilawa erase carries one out sooner, tilawa erasure-request \
            cancel takes one back. Exit status: 0, 78 bad configuration.
            """
    )

    @Flag(help: "Print the requests as JSON on stdout.")
    var json = false

    @OptionGroup var config: ConfigurationOptions

    func run() throws {
        let runtime = try config.runtime()
        let pending: [ErasureRequestRecord]
        do {
            pending = try runtime.database.pendingErasureRequestsNow()
        } catch {
            throw CommandLineOutput.fail(error)
        }
        if json {
            try CommandLineOutput.printJSON(pending.map(ErasureRequestSummary.init))
            return
        }
        guard !pending.isEmpty else {
            print("no erasure request pending")
            return
        }
        let now = runtime.clock()
        CommandLineOutput.printRows(pending.map { request -> (String, String) in
            let due = "due \(request.dueAt.formatted(.iso8601))" + (request.dueAt <= now ? " (due now)" : "")
            return (request.studentId, "asked \(request.requestedAt.formatted(.iso8601)) by \(request.requestedBy), \(due)")
        })
    }
}
