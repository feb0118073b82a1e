import Crypto
import Foundation

/// The desk's static files (`web/desk/`, embedded at build time by the EmbedDesk plugin),
/// each with its media type and an ETag from its content.
enum DeskAssets {
    struct File: Sendable {
        let bytes: [UInt8]
        let contentType: String
        let etag: String
    }

    /// The files by name, built once: the text files as UTF-8, the binary ones (the Quran
    /// font) from their Base64 (written by the build tool, so always valid).
    static let files: [String: File] = Dictionary(uniqueKeysWithValues:
        DeskAssetFiles.files.map { name, text in (name, file(name, Array(text.utf8))) }
        + DeskAssetFiles.binaries.map { name, base64 in
            (name, file(name, Array(Data(base64Encoded: base64, options: .ignoreUnknownCharacters) ?? Data())))
        })

    private static func file(_ name: String, _ bytes: [UInt8]) -> File {
        let digest = SHA256.hash(data: bytes).prefix(12).map { String(format: "%02x", $0) }.joined()
        return File(bytes: bytes, contentType: contentType(of: name), etag: "\"\(digest)\"")
    }

    static func file(named name: String) -> File? { files[name] }

    static func contentType(of name: String) -> String {
        switch URL(fileURLWithPath: name).pathExtension.lowercased() {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "svg": "image/svg+xml"
        case "json": "application/json"
        case "ttf": "font/ttf"
        case "otf": "font/otf"
        case "woff": "font/woff"
        case "woff2": "font/woff2"
        default: "text/plain; charset=utf-8"
        }
    }
}
