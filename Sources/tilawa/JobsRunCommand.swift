import ArgumentParser
import Foundation
import TilawaDaemon
import TilawaStore

/// `tilawa jobs run`.
struct JobsRunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Requeue jobs abandoned by dead processes and run every due job, then exit."
    )

    @OptionGroup var config: ConfigurationOptions

    func run() throws {
        let runtime = try config.runtime()
        do {
            let requeued = try runtime.database.requeueAbandonedJobs(isAlive: EncodeJobRunner.isAlive)
            let ran = try runtime.encodeRunner.runPending()
            print("requeued \(requeued) abandoned, ran \(ran) jobs, \(try runtime.database.pendingJobCount()) pending")
        } catch {
            throw CommandLineOutput.fail(error)
        }
    }
}
