import CFileShims
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An open directory that names its entries relative to itself, never through a path.
///
/// A coach's folder is what that coach controls: any name in it may be a symbolic link, a
/// hard link or a FIFO put there to redirect a path-based read or move (into another coach's
/// folder, onto a secret). Everything below the drop folder's root is therefore reached with
/// `openat`/`fstatat`/`renameat2` relative to a descriptor, with `O_NOFOLLOW` on every open.
///
/// `Sendable`: the descriptor is set once and only read; the kernel serialises what is done
/// through it, and it is closed in `deinit`, when no one can use it any more.
final class DirectoryDescriptor: Sendable {
    /// The open directory.
    let descriptor: Int32
    /// Where it was opened, for messages only (never used to reach a file).
    let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit {
        close(descriptor)
    }

    /// Opens `path` itself, following a symbolic link: only for a folder the operator chose
    /// (`dropbox.path`, the directory of a file given on the command line).
    static func open(path: String) throws(FileSystemFailure) -> DirectoryDescriptor {
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemFailure(errno: errno, operation: "open", name: path) }
        return DirectoryDescriptor(descriptor: fd, path: path)
    }

    /// Opens the directory `name` inside this one; a symbolic link or anything but a
    /// directory fails (`ELOOP`, `ENOTDIR`).
    func openDirectory(_ name: EntryName) throws(FileSystemFailure) -> DirectoryDescriptor {
        let fd = name.withCString { openat(descriptor, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        guard fd >= 0 else { throw FileSystemFailure(errno: errno, operation: "open", name: path + "/" + name.display) }
        return DirectoryDescriptor(descriptor: fd, path: path + "/" + name.display)
    }

    /// `name`, created if missing, then opened as `openDirectory` does.
    func makeDirectory(_ name: EntryName) throws(FileSystemFailure) -> DirectoryDescriptor {
        let made = name.withCString { mkdirat(descriptor, $0, 0o755) }
        if made != 0 && errno != EEXIST {
            throw FileSystemFailure(errno: errno, operation: "mkdir", name: path + "/" + name.display)
        }
        return try openDirectory(name)
    }

    /// The names in this directory (not `.` and `..`), as raw bytes; empty if it cannot be read.
    func entries() -> [EntryName] {
        let copy = dup(descriptor)
        guard copy >= 0 else { return [] }
        guard let stream = fdopendir(copy) else {
            close(copy)
            return []
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var names: [EntryName] = []
        while let entry = readdir(stream) {
            let bytes = withUnsafeBytes(of: &entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if bytes == [0x2E] || bytes == [0x2E, 0x2E] { continue }
            names.append(EntryName(bytes: bytes))
        }
        return names
    }

    /// What `name` itself is (a symbolic link is described, not followed), or nil if it is gone.
    func status(of name: EntryName) -> stat? {
        var info = stat()
        let result = name.withCString { fstatat(descriptor, $0, &info, AT_SYMLINK_NOFOLLOW) }
        return result == 0 ? info : nil
    }

    /// Opens `name` for reading if it is a regular file with one link, without following a
    /// symbolic link and without blocking on a FIFO. The caller closes the descriptor.
    func openRegularFile(_ name: EntryName) throws(FileSystemFailure) -> (descriptor: Int32, status: stat) {
        let fd = name.withCString { openat(descriptor, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) }
        guard fd >= 0 else { throw FileSystemFailure(errno: errno, operation: "open", name: path + "/" + name.display) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = errno
            close(fd)
            throw FileSystemFailure(errno: error, operation: "stat", name: path + "/" + name.display)
        }
        guard info.st_mode & S_IFMT == S_IFREG, info.st_nlink == 1 else {
            close(fd)
            throw FileSystemFailure(errno: EINVAL, operation: "open", name: path + "/" + name.display)
        }
        return (fd, info)
    }

    /// Moves `name` to `target` in `directory`, never replacing what is there (`EEXIST`).
    ///
    /// `renameat2(RENAME_NOREPLACE)`; where the filesystem has none (`EINVAL`, `ENOSYS`), a
    /// hard link at the new name (which also refuses to replace) and an unlink of the old one.
    func move(_ name: EntryName, to directory: DirectoryDescriptor, as target: EntryName) throws(FileSystemFailure) {
        let renamed = name.withCString { old in target.withCString { new in tilawa_rename_noreplace(descriptor, old, directory.descriptor, new) } }
        if renamed == 0 { return }
        let error = errno
        guard error == EINVAL || error == ENOSYS else {
            throw FileSystemFailure(errno: error, operation: "rename", name: path + "/" + name.display)
        }
        let linked = name.withCString { old in target.withCString { new in linkat(descriptor, old, directory.descriptor, new, 0) } }
        guard linked == 0 else { throw FileSystemFailure(errno: errno, operation: "link", name: path + "/" + name.display) }
        _ = name.withCString { unlinkat(descriptor, $0, 0) }
    }

    /// Creates `name` holding `contents`; fails with `EEXIST` if anything (a link included) has that name.
    func createExclusive(_ name: EntryName, contents: [UInt8]) throws(FileSystemFailure) {
        let fd = name.withCString { openat(descriptor, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644) }
        guard fd >= 0 else { throw FileSystemFailure(errno: errno, operation: "create", name: path + "/" + name.display) }
        defer { close(fd) }
        var written = 0
        while written < contents.count {
            let count = contents[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw FileSystemFailure(errno: errno, operation: "write", name: path + "/" + name.display) }
            written += count
        }
    }

    /// Removes the file `name` (not a directory); errors are ignored.
    func remove(_ name: EntryName) {
        _ = name.withCString { unlinkat(descriptor, $0, 0) }
    }
}
