import Foundation

// openapi-embed DOCUMENT OUTPUT: writes OUTPUT, a Swift file declaring
// `public enum OpenAPIDocument { public static let yaml: String }` holding DOCUMENT's text
// (without its final newline) as a raw string literal. Run by the EmbedOpenAPI build plugin.

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: openapi-embed DOCUMENT OUTPUT\n".utf8))
    exit(64)
}
let text: String
do {
    text = try String(contentsOfFile: arguments[1], encoding: .utf8)
} catch {
    FileHandle.standardError.write(Data("openapi-embed: cannot read \(arguments[1]): \(error)\n".utf8))
    exit(66)
}
// A delimiter the text cannot close: one more `#` than any `"""#…` run in it.
var hashes = "#"
while text.contains("\"\"\"" + hashes) { hashes += "#" }
let body = text.hasSuffix("\n") ? text : text + "\n"
let source = """
// Generated at build time from openapi/openapi.yaml by the EmbedOpenAPI plugin; not in git.

/// The OpenAPI 3.1 description served at `GET /openapi.yaml`.
public enum OpenAPIDocument {
    /// The document as `openapi/openapi.yaml` holds it, without its final newline.
    public static let yaml = \(hashes)\"\"\"
\(body)\"\"\"\(hashes)
}

"""
do {
    try Data(source.utf8).write(to: URL(fileURLWithPath: arguments[2]), options: .atomic)
} catch {
    FileHandle.standardError.write(Data("openapi-embed: cannot write \(arguments[2]): \(error)\n".utf8))
    exit(73)
}
