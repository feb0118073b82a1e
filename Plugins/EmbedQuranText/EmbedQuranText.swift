import Foundation
import PackagePlugin

/// Embeds Tanzil's Uthmani Quran text (`data/quran/quran-uthmani.txt`) in the target that
/// indexes it, at build time, as a Swift raw string literal (`TanzilUthmaniFile.text`): the
/// committed file stays the only copy in git, byte for byte as Tanzil publishes it, and the
/// daemon reads it without a resource folder or a working directory.
///
/// A sibling of `EmbedOpenAPI` rather than a second job for it: the two inputs belong to
/// different targets, and a build tool plugin runs for every target that names it.
@main
struct EmbedQuranText: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        let input = context.package.directoryURL.appending(path: "data/quran/quran-uthmani.txt")
        let output = context.pluginWorkDirectoryURL.appending(path: "TanzilUthmaniFile.swift")
        return [
            .buildCommand(
                displayName: "Embedding data/quran/quran-uthmani.txt in \(target.name)",
                executable: try context.tool(named: "text-embed").url,
                arguments: [input.path(), output.path(), "TanzilUthmaniFile", "data/quran/quran-uthmani.txt"],
                inputFiles: [input],
                outputFiles: [output]),
        ]
    }
}
