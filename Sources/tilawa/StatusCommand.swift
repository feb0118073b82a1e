import ArgumentParser
import Foundation
import TilawaDaemon

/// `tilawa status [--json] [--expect-running]`: the operations summary (DESIGN §7), usable
/// as a Nagios plugin. It never needs the daemon and never writes to the state directory.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Summarise the service's health: daemon, uploads, backlogs, disk, missing files.",
        discussion: """
            Reads the database read-only (never blocking the daemon) and asks the daemon's /readyz \
            when it answers. Exit status, as a Nagios plugin: 0 OK, 1 WARNING (overdue feedback, \
            notifications undelivered for more than 10 minutes, failed encode jobs, drop-folder \
            rejections in the last 24 h, disk free below 15 %, the daemon down without \
            --expect-running), 2 CRITICAL (the daemon down with --expect-running, disk free below 5 %, \
            artifact files missing), 3 UNKNOWN (the state directory or database cannot be read, \
            bad configuration).
            """
    )

    @Flag(help: "Print the report as JSON on stdout (the body of GET /v1/status).")
    var json = false

    @Flag(help: "The daemon should be running (as under systemd): down is CRITICAL rather than WARNING.")
    var expectRunning = false

    @Option(help: ArgumentHelp("Disk free below this percentage is WARNING.", valueName: "percent"))
    var diskWarning: Double = StatusThresholds().diskWarningPercent

    @Option(help: ArgumentHelp("Disk free below this percentage is CRITICAL.", valueName: "percent"))
    var diskCritical: Double = StatusThresholds().diskCriticalPercent

    @OptionGroup var config: ConfigurationOptions

    func validate() throws {
        guard (0...100).contains(diskWarning), (0...100).contains(diskCritical) else {
            throw ValidationError("--disk-warning and --disk-critical are percentages from 0 to 100.")
        }
        guard diskCritical <= diskWarning else { throw ValidationError("--disk-critical must not exceed --disk-warning.") }
    }

    func run() async throws {
        let configuration: TilawaConfiguration
        do {
            configuration = try TilawaConfiguration.load(
                file: config.file, environment: ProcessInfo.processInfo.environment,
                workingDirectory: FileManager.default.currentDirectoryPath)
        } catch {
            // A monitoring plugin that cannot run says UNKNOWN, not 78.
            throw CommandLineOutput.fail(code: error.code, message: error.description, exit: StatusState.unknown.exitCode)
        }
        var thresholds = StatusThresholds()
        thresholds.diskWarningPercent = diskWarning
        thresholds.diskCriticalPercent = diskCritical
        let reporter = StatusReporter(configuration: configuration, thresholds: thresholds, expectRunning: expectRunning)
        let report = await reporter.report(now: Date())
        if json {
            try CommandLineOutput.printJSON(report)
        } else {
            print(StatusTextRenderer(colour: Self.wantsColour()).render(report), terminator: "")
        }
        if report.state != .ok { throw ExitCode(report.state.exitCode) }
    }

    /// Colour only on a terminal, and never when `NO_COLOR` is set to something (no-color.org).
    static func wantsColour() -> Bool {
        guard isatty(STDOUT_FILENO) == 1 else { return false }
        return (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
    }
}
