import Crypto
import Foundation
import TilawaCore

/// A coach's photo (DESIGN §14): an image checked by its content — JPEG, PNG or WebP, at most
/// `maxBytes` — and copied into the state directory under a name made of its SHA-256, so a
/// re-import of the same file changes nothing and a changed file never overwrites one being
/// served.
public struct CoachPhoto: Sendable, Equatable {
    /// The largest photo accepted: 2 MiB.
    public static let maxBytes = 2 << 20

    public let mediaType: String
    public let fileExtension: String
    public let sha256: String
    public let data: Data

    /// The image in `data`, or why it is not one Tilawa serves (one sentence).
    public static func check(_ data: Data) -> Result<CoachPhoto, PhotoProblem> {
        guard data.count <= maxBytes else { return .failure(.tooLarge(bytes: data.count)) }
        let bytes = [UInt8](data.prefix(16))
        let kind: (String, String)? = if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            ("image/jpeg", "jpg")
        } else if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            ("image/png", "png")
        } else if bytes.count >= 12, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46], bytes[8..<12] == [0x57, 0x45, 0x42, 0x50] {
            ("image/webp", "webp")
        } else {
            nil
        }
        guard let (mediaType, fileExtension) = kind, data.count >= 32 else { return .failure(.notAnImage) }
        let sha256 = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        return .success(CoachPhoto(mediaType: mediaType, fileExtension: fileExtension, sha256: sha256, data: data))
    }

    /// Why a photo file is refused.
    public enum PhotoProblem: Error, Sendable, Equatable {
        case tooLarge(bytes: Int)
        case notAnImage

        public var sentence: String {
            switch self {
            case let .tooLarge(bytes): "is \(Quantity.bytes(Int64(bytes))); a photo may be at most 2 MiB"
            case .notAnImage: "is not a JPEG, PNG or WebP image (checked by its content, not its name)"
            }
        }
    }

    /// The photo's path relative to the state directory.
    public var relativePath: String { "photos/\(sha256).\(fileExtension)" }

    /// Writes the photo beside the artifacts (`StateDirectory.photoStore`: the state directory,
    /// or the S3 store where every node finds it), durably; nothing on disk when it is there
    /// already. Returns its relative path.
    public func store(in state: StateDirectory) throws -> String {
        let photos = state.photoStore
        // Named by its content: one that is there has these very bytes.
        if !photos.exists(relativePath) {
            try photos.write(data, to: relativePath)
        }
        return relativePath
    }
}

extension CoachPhoto {
    /// Reads and checks `coach`'s photo, a file named relative to the programme file
    /// `programPath`: `invalid_photo` (naming the line) for a file that is missing, not a
    /// regular file, larger than 2 MiB (refused before it is read) or not an image.
    public static func load(for coach: CoachDefinition, programPath: String) throws(RosterError) -> CoachPhoto? {
        guard let name = coach.photo else { return nil }
        let path = URL(fileURLWithPath: programPath).deletingLastPathComponent().appendingPathComponent(name).path
        func refuse(_ why: String) -> RosterError {
            RosterError(.invalidPhoto, source: programPath, line: coach.photoLine,
                        "the photo of coach \(coach.id) (\(RosterText.quoted(name))) \(why)")
        }
        // lstat: a link (which might lead out of the programme's directory) or a FIFO (which
        // would hang the read) is refused before anything is opened.
        var info = stat()
        guard lstat(path, &info) == 0 else { throw refuse("is not there; put the image beside the programme file") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw refuse("is not a regular file (a link, a folder or a pipe); copy the image itself beside the programme file") }
        guard Int(info.st_size) <= maxBytes else { throw refuse(PhotoProblem.tooLarge(bytes: Int(info.st_size)).sentence) }
        guard let data = FileManager.default.contents(atPath: path) else { throw refuse("cannot be read") }
        switch check(data) {
        case let .success(photo): return photo
        case let .failure(problem): throw refuse(problem.sentence)
        }
    }

    /// Removes the photos in `state` that `kept` (relative paths) does not name: those of
    /// coaches whose photo changed or went. Only `photos/<sha256>.<ext>` files are touched.
    /// While a backup runs none is removed (the next import removes them).
    public static func removeUnused(in state: StateDirectory, kept: Set<String>) {
        BackupLock(stateRoot: state.root).unlessBackingUp { removeUnusedNow(in: state, kept: kept) }
    }

    private static func removeUnusedNow(in state: StateDirectory, kept: Set<String>) {
        let photos = state.photoStore
        for entry in (try? photos.storage.list(prefix: "photos/")) ?? [] where !kept.contains(entry.path) && isPhotoName(entry.path) {
            photos.remove(entry.path)
        }
    }

    /// `photos/<sha256>.<ext>`: the only names the clean-up touches.
    private static func isPhotoName(_ relative: String) -> Bool {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "photos" else { return false }
        let stem = parts[1].split(separator: ".").first.map(String.init) ?? ""
        return stem.count == 64 && stem.allSatisfy(\.isHexDigit)
    }
}
