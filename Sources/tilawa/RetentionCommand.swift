import ArgumentParser
import Foundation
import TilawaDaemon
import TilawaStore

/// `tilawa retention [--dry-run] [--months N]`: removes the audio of enrolments whose semester
/// closed `retention.months_after_semester` months ago (DESIGN §12).
struct RetentionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention",
        abstract: "Remove (or with --dry-run list) the audio of enrolments whose semester closed long enough ago.",
        discussion: "Exit status: 0, 64 usage (no months configured or given), 78 configuration."
    )

    @Flag(help: "List what would be removed; change nothing.") var dryRun = false
    @Option(help: "Months after the semester closed (default: retention.months_after_semester).") var months: Int?
    @OptionGroup var config: ConfigurationOptions

    func run() throws {
        let runtime = try config.runtime()
        guard let months = months ?? runtime.configuration.storage.retentionMonthsAfterSemester, (1...1200).contains(months) else {
            throw CommandLineOutput.fail(code: "retention_off", message: "retention.months_after_semester is not set; give --months N (1–1200).",
                                         exit: ExitStatus.usage)
        }
        let plan: RetentionPlan
        do {
            plan = try runtime.database.applyRetention(months: months, now: runtime.clock(), dryRun: dryRun)
        } catch {
            throw CommandLineOutput.fail(error)
        }
        if !dryRun { for path in plan.files { runtime.stateDirectory.artifactStore.remove(path) } }
        for path in plan.files { print((dryRun ? "would remove " : "removed ") + path) }
        print("\(plan.submissions.count) recordings, \(plan.files.count) files\(dryRun ? " (dry run: nothing removed)" : "")")
    }
}
