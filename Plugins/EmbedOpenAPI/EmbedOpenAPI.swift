import Foundation
import PackagePlugin

/// Embeds `openapi/openapi.yaml` in the target that serves it, at build time, as a Swift
/// string literal (`OpenAPIDocument.yaml`): the file stays the only copy of the contract in
/// git, and the installed binary needs no resource folder beside it under systemd.
@main
struct EmbedOpenAPI: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        let document = context.package.directoryURL.appending(path: "openapi/openapi.yaml")
        let output = context.pluginWorkDirectoryURL.appending(path: "OpenAPIDocument.swift")
        return [
            .buildCommand(
                displayName: "Embedding openapi/openapi.yaml in \(target.name)",
                executable: try context.tool(named: "openapi-embed").url,
                arguments: [document.path(), output.path()],
                inputFiles: [document],
                outputFiles: [output]),
        ]
    }
}
