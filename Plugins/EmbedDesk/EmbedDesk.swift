import Foundation
import PackagePlugin

/// Embeds the coach's desk (`web/desk/`: HTML, CSS, JavaScript written in this project) in
/// the target that serves it, at build time, each file an input of the build: the installed
/// binary needs no folder of assets beside it, and what it serves is what git holds.
@main
struct EmbedDesk: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        let folder = context.package.directoryURL.appending(path: "web/desk")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
            .filter { !$0.lastPathComponent.hasPrefix(".") && !$0.hasDirectoryPath }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "DeskAssetFiles.swift")
        // The folder itself is an input too, and the tool lists it when it runs: a file added
        // to (or removed from) web/desk/ changes the folder, so the command runs again and sees
        // it even when the build plan (and this file list) is not made anew.
        return [
            .buildCommand(
                displayName: "Embedding web/desk in \(target.name)",
                executable: try context.tool(named: "desk-embed").url,
                arguments: [output.path(), folder.path()],
                inputFiles: [folder] + files,
                outputFiles: [output]),
        ]
    }
}
