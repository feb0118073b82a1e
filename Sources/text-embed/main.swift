import Foundation

// text-embed INPUT OUTPUT TYPE LABEL: writes OUTPUT, a Swift file declaring
// `enum TYPE { static let text: String }` (internal to the target) holding INPUT's text
// exactly — every byte, its final newline included — as one raw multi-line string literal.
// LABEL names the input in the generated comments. Run by the EmbedQuranText build plugin.
//
// A string literal, not a `[UInt8]` array: swiftc compiles 1.4 MB of string literal in well
// under a second, while the same bytes as an array literal took more than 5 minutes and
// 8 GB of memory (README, "The passage text").

let arguments = CommandLine.arguments
guard arguments.count == 5 else {
    FileHandle.standardError.write(Data("usage: text-embed INPUT OUTPUT TYPE LABEL\n".utf8))
    exit(64)
}
let (input, output, type, label) = (arguments[1], arguments[2], arguments[3], arguments[4])
let text: String
do {
    text = try String(contentsOfFile: input, encoding: .utf8)
} catch {
    FileHandle.standardError.write(Data("text-embed: cannot read \(input) as UTF-8: \(error)\n".utf8))
    exit(66)
}
// A multi-line literal normalises CR and CRLF to LF, which would change the text silently.
guard !text.contains("\r") else {
    FileHandle.standardError.write(Data("text-embed: \(input) has carriage returns; a string literal cannot keep them\n".utf8))
    exit(65)
}
// A delimiter the text can neither close (`"""#`) nor escape in (`\#`): more `#` than any such run.
var hashes = "#"
while text.contains("\"\"\"" + hashes) || text.contains("\\" + hashes) { hashes += "#" }
// The literal ends before the newline that precedes its closing delimiter, so one more
// newline keeps the file's own last line break (or its absence) exactly.
let source = """
// Generated at build time from \(label) by a build tool plugin; not in git.

/// The bytes of `\(label)`, unchanged, as UTF-8 text.
enum \(type) {
    /// The whole file, its last line break included.
    static let text = \(hashes)\"\"\"
\(text)
\"\"\"\(hashes)
}

"""
do {
    try Data(source.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
} catch {
    FileHandle.standardError.write(Data("text-embed: cannot write \(output): \(error)\n".utf8))
    exit(73)
}
