import Foundation

// desk-embed OUTPUT FOLDER: writes OUTPUT, a Swift file declaring
// `enum DeskAssetFiles { static let files: [(name: String, text: String)]; static let
// binaries: [(name: String, base64: String)] }` holding the name and UTF-8 text of each text
// file of FOLDER (not hidden ones) as a raw string literal, and each binary file (a font:
// `.ttf`, `.otf`, `.woff`, `.woff2`) as Base64 in lines. Run by the EmbedDesk build plugin.

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: desk-embed OUTPUT FOLDER\n".utf8))
    exit(64)
}
let folder = URL(fileURLWithPath: arguments[2])
let paths: [String]
do {
    paths = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        .filter { !$0.hasPrefix(".") }
        .sorted()
        .map { folder.appendingPathComponent($0).path }
        .filter { var isFolder: ObjCBool = false; return FileManager.default.fileExists(atPath: $0, isDirectory: &isFolder) && !isFolder.boolValue }
} catch {
    FileHandle.standardError.write(Data("desk-embed: cannot list \(folder.path): \(error)\n".utf8))
    exit(66)
}
let binaryExtensions: Set<String> = ["ttf", "otf", "woff", "woff2"]
var entries: [String] = []
var binaries: [String] = []
for path in paths {
    let name = URL(fileURLWithPath: path).lastPathComponent
    guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }) else {
        FileHandle.standardError.write(Data("desk-embed: \(name): a desk file's name is letters, digits, '.', '_' and '-'\n".utf8))
        exit(65)
    }
    if binaryExtensions.contains(URL(fileURLWithPath: path).pathExtension.lowercased()) {
        guard let bytes = FileManager.default.contents(atPath: path) else {
            FileHandle.standardError.write(Data("desk-embed: cannot read \(path)\n".utf8))
            exit(66)
        }
        // Base64 has neither `"` nor `\`: a plain multi-line literal holds it; its line breaks are skipped when decoded.
        let base64 = bytes.base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed])
        binaries.append("        (\"\(name)\", \"\"\"\n\(base64)\n\"\"\"),")
        continue
    }
    let text: String
    do {
        text = try String(contentsOfFile: path, encoding: .utf8)
    } catch {
        FileHandle.standardError.write(Data("desk-embed: cannot read \(path) as UTF-8 text: \(error)\n".utf8))
        exit(66)
    }
    // A delimiter the text can neither close nor escape: more `#` than any `"#…` or `\#…` run in it.
    var hashes = "#"
    while text.contains("\"" + hashes) || text.contains("\\" + hashes) { hashes += "#" }
    entries.append("        (\"\(name)\", \(hashes)\"\"\"\n\(text)\n\"\"\"\(hashes)),")
}
let source = """
// Generated at build time from web/desk/ by the EmbedDesk plugin; not in git.

/// The desk's files as `web/desk/` holds them.
enum DeskAssetFiles {
    static let files: [(name: String, text: String)] = [
\(entries.joined(separator: "\n"))
    ]

    /// The binary files (fonts), Base64 in lines.
    static let binaries: [(name: String, base64: String)] = [
\(binaries.joined(separator: "\n"))
    ]
}

"""
do {
    try Data(source.utf8).write(to: URL(fileURLWithPath: arguments[1]), options: .atomic)
} catch {
    FileHandle.standardError.write(Data("desk-embed: cannot write \(arguments[1]): \(error)\n".utf8))
    exit(73)
}
