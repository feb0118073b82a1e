import ArgumentParser
import Foundation
import Logging
import TilawaDaemon
import TilawaStore

/// `tilawa serve`: the daemon — HTTP API, encode workers, housekeeping, systemd integration.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the daemon: HTTP API, encode workers, drop-folder watcher, notifier.",
        discussion: """
            Exit status: 0 after a clean shutdown (SIGTERM or SIGINT), 78 bad configuration, 69 cannot listen \
            or another daemon uses the state directory (state_dir_in_use).
            """
    )

    @OptionGroup var config: ConfigurationOptions

    func run() async throws {
        let configuration = try config.load()
        let environment = ProcessInfo.processInfo.environment
        LogfmtHandler.bootstrap(level: configuration.logLevel, environment: environment)
        let logger = Logger(label: "tilawa")
        // The test clock exists in debug builds only (the tests' child daemons): a release
        // build never lets the environment move the clock that checks tokens and ages files.
        #if DEBUG
        let accelerated = AcceleratedClock(environment: environment)
        #else
        let accelerated: AcceleratedClock? = nil
        if environment[AcceleratedClock.variable] != nil {
            logger.warning("TILAWA_TEST_CLOCK ignored: a release build has no test clock")
        }
        #endif
        let application: TilawaApplication
        do {
            if let accelerated {
                logger.warning("test clock in use: programme time is accelerated", metadata: [
                    "start": "\(accelerated.start.formatted(.iso8601))", "rate": "\(accelerated.rate)"])
                application = try await TilawaApplication(configuration: configuration, environment: environment, logger: logger,
                                                          clock: { accelerated.now() }, programmeTick: accelerated.tickInterval)
            } else {
                application = try await TilawaApplication(configuration: configuration, environment: environment, logger: logger)
            }
        } catch let error as ConfigurationError {
            throw CommandLineOutput.fail(code: error.code, message: error.description, exit: ExitStatus.configuration)
        } catch let error as StateDirectoryLock.Failure {
            throw CommandLineOutput.fail(code: error.code, message: error.description, exit: ExitStatus.unavailable)
        } catch {
            throw CommandLineOutput.fail(error)
        }
        do {
            try await application.serviceGroup(gracefulShutdownSignals: [.sigterm, .sigint]).run()
        } catch {
            logger.error("daemon stopped on error", metadata: ["error": "\(error)"])
            throw CommandLineOutput.fail(code: "serve_failed", message: "\(error)", exit: ExitStatus.unavailable)
        }
        logger.info("stopped")
    }
}
