import ArgumentParser
import TilawaDaemon

/// `tilawa config keys [--markdown]`: the configuration's catalogue, the one source the README,
/// `CONFIGURATION.md` and the loader share.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "The configuration's keys.",
        subcommands: [ConfigKeysCommand.self]
    )
}

struct ConfigKeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Every configuration key with its environment variable, default and meaning.",
        discussion: "With --markdown, the documentation's table (`make config-docs` writes it into the README and CONFIGURATION.md)."
    )

    @Flag(help: "Print the Markdown table the documentation carries.")
    var markdown = false

    func run() throws {
        if markdown {
            print(ConfigurationKey.markdownTable)
        } else {
            CommandLineOutput.printRows(ConfigurationKey.all.map { ($0.name, "\($0.environmentVariable) = \($0.defaultValue)") })
        }
    }
}
