import Foundation
import TilawaCore

#if canImport(Glibc)
import Glibc
#endif

/// A reply's written notes: the `<same stem>.txt` beside it (DESIGN §5), read relative to the
/// folder's descriptor, never through a link.
///
/// A notes file that is a symbolic link, a hard link, a FIFO or anything but a plain file is
/// refused unread: in a coach's folder it could point at a secret of the daemon's, and what
/// it holds would be shown back to the coach and the student.
public enum ReplyNotes {
    /// Largest notes file accepted (DESIGN §5: 8 KiB).
    public static let maximumBytes = 8 * 1024

    /// Why a notes file was refused; `message` is one sentence for the coach.
    public struct Refusal: Error, Sendable {
        public let code: String
        public let message: String
    }

    /// The notes for `reply`, nil when there is no notes file.
    static func read(for reply: DropFileName, in directory: DirectoryDescriptor) -> Result<String?, Refusal> {
        let name = EntryName(reply.sidecarName)
        guard let info = directory.status(of: name) else { return .success(nil) }
        guard info.st_mode & S_IFMT == S_IFREG, info.st_nlink == 1 else {
            return .failure(Refusal(code: "invalid_notes", message:
                "The notes file \(reply.sidecarName) must be a plain text file, not a link or a special file — save the notes as a normal file and drop both files again."))
        }
        let tooLarge = Refusal(code: "invalid_notes", message:
            "The notes file \(reply.sidecarName) must be UTF-8 text of at most 8 KiB — shorten it or save it as UTF-8, then drop both files again.")
        guard info.st_size <= maximumBytes, let opened = try? directory.openRegularFile(name) else { return .failure(tooLarge) }
        defer { close(opened.descriptor) }
        var buffer = [UInt8](repeating: 0, count: maximumBytes + 1)
        var filled = 0
        while filled < buffer.count {
            let count = buffer[filled...].withUnsafeMutableBytes { Glibc.read(opened.descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            filled += count
        }
        guard filled <= maximumBytes, let text = String(validating: buffer[..<filled], as: UTF8.self) else { return .failure(tooLarge) }
        return .success(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The notes beside the file at `path` (the command line's `tilawa feedback import`): the
    /// folder is the one the operator named; the notes file itself is opened as above.
    public static func read(besideFile path: String, reply: DropFileName) -> Result<String?, Refusal> {
        let folder = (path as NSString).deletingLastPathComponent
        guard let directory = try? DirectoryDescriptor.open(path: folder.isEmpty ? "." : folder) else { return .success(nil) }
        return read(for: reply, in: directory)
    }
}
