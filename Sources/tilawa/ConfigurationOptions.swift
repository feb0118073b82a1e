import ArgumentParser
import Foundation
import TilawaDaemon

/// `--config FILE`, shared by every command that touches the state directory.
struct ConfigurationOptions: ParsableArguments {
    @Option(name: .customLong("config"), help: "Configuration file (default: config/tilawa.yaml if present).")
    var file: String?

    /// Loads the configuration, or prints `tilawa: bad_configuration: <key>: …` and exits 78.
    func load() throws -> TilawaConfiguration {
        do {
            return try TilawaConfiguration.load(
                file: file, environment: ProcessInfo.processInfo.environment,
                workingDirectory: FileManager.default.currentDirectoryPath)
        } catch {
            throw CommandLineOutput.fail(code: error.code, message: error.description, exit: ExitStatus.configuration)
        }
    }

    /// Loads the configuration and opens the state directory and database.
    func runtime() throws -> TilawaRuntime {
        let configuration = try load()
        do {
            return try TilawaRuntime(configuration: configuration)
        } catch {
            throw CommandLineOutput.fail(error)
        }
    }
}
