import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The HS256 key file of `auth.jwt_key_file`: read it, or create it on first start.
///
/// A created key is 32 bytes from the system's secure random generator, written as 64
/// lowercase hex characters and a newline, mode 0600. The key *is the file's bytes* (the 64
/// characters, the newline dropped), like any key file an operator provides — 256 bits of
/// entropy either way, and the same file can be handed to another HS256 implementation.
public enum JWTKeyFile {
    /// The key of `configuration`, creating the file first when it is missing and was not
    /// configured explicitly.
    ///
    /// - When the file exists, it is read with `TilawaConfiguration.readJWTKey()`.
    /// - When it is missing and `auth.jwt_key_file` was not set, it is created at the default
    ///   path (`<state_dir>/secrets/jwt.key`): its directory is made with mode 0700 if it does
    ///   not exist (missing ancestors above it get the usual 0755, since the state directory
    ///   also holds the drop folder), the key is written to a temporary name in that directory,
    ///   fsynced, and hard-linked to the final name, which fails if the name exists; the
    ///   directory is then fsynced. So the final name never holds a partial key, and of two
    ///   processes starting at once exactly one key wins: the loser discards its own and reads
    ///   the winner's.
    /// - When it is missing and `auth.jwt_key_file` was set, that is an error: an operator who
    ///   names a key file expects that key, and a fresh one would silently invalidate tokens.
    ///
    /// - Throws: `ConfigurationError` for `auth.jwt_key_file` when the file is missing but
    ///   configured, cannot be read or created, or holds fewer than
    ///   `TokenAuthority.minimumKeyLength` bytes.
    public static func loadOrCreate(configuration: TilawaConfiguration) throws(ConfigurationError) -> [UInt8] {
        let path = configuration.secretLocation(configuration.auth.jwtKeyFile)
        if !exists(path) {
            guard !configuration.auth.jwtKeyFileIsExplicit else {
                throw ConfigurationError(
                    key: configKey,
                    message: "the key file \(path) does not exist; create it (e.g. `openssl rand -hex 32 > \(path)`) "
                        + "or unset auth.jwt_key_file to let tilawa create one in the state directory")
            }
            try create(path)
        }
        let key = try configuration.readJWTKey()
        guard key.count >= TokenAuthority.minimumKeyLength else {
            throw ConfigurationError(
                key: configKey,
                message: "the key in \(path) is \(key.count) bytes; HS256 needs at least "
                    + "\(TokenAuthority.minimumKeyLength) (256 bits), e.g. `openssl rand -hex 32 > \(path)`")
        }
        return key
    }

    static let configKey = "auth.jwt_key_file"

    /// The contents of a new key file: 32 random bytes as 64 hex characters and a newline.
    static func newKeyFileContents() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let hexDigits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(65)
        for _ in 0..<32 {
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0F)])
        }
        text.append(UInt8(ascii: "\n"))
        return text
    }

    /// False only when nothing is at `path` (a dangling symlink counts as something); any
    /// other `lstat` failure is left to the read to report.
    private static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 || errno != ENOENT
    }

    private static func create(_ path: String) throws(ConfigurationError) {
        let directory = (path as NSString).deletingLastPathComponent
        try makeDirectories(directory)
        let temporary = directory + "/.\((path as NSString).lastPathComponent).\(getpid()).\(UInt64.random(in: 0 ... .max)).tmp"
        defer { unlink(temporary) }
        try writeSynced(newKeyFileContents(), to: temporary)
        // link(2) creates the final name only if it does not exist, atomically, and only after
        // the content is on disk: a rename would replace a key another process just created.
        if link(temporary, path) != 0 {
            let error = errno
            // Lost the race: another process created the key first; the caller reads theirs.
            guard error == EEXIST else { throw failure("cannot create the key file \(path)", error) }
            return
        }
        try fsyncDirectory(directory)
    }

    /// Creates `directory` and its missing ancestors; the directory itself gets mode 0700.
    private static func makeDirectories(_ directory: String) throws(ConfigurationError) {
        var missing: [String] = []
        var current = directory
        while !current.isEmpty, current != "/", !exists(current) {
            missing.append(current)
            current = (current as NSString).deletingLastPathComponent
        }
        for candidate in missing.reversed() {
            let isKeyDirectory = candidate == directory
            if mkdir(candidate, isKeyDirectory ? 0o700 : 0o755) != 0 {
                let error = errno
                guard error == EEXIST else { throw failure("cannot create the directory \(candidate)", error) }
                continue
            }
            // The umask may have narrowed the mode; the key's directory must be exactly 0700.
            if isKeyDirectory, chmod(candidate, 0o700) != 0 {
                throw failure("cannot set the mode of \(candidate)", errno)
            }
            try fsyncDirectory((candidate as NSString).deletingLastPathComponent)
        }
    }

    private static func writeSynced(_ bytes: [UInt8], to path: String) throws(ConfigurationError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("cannot create \(path)", errno) }
        defer { close(descriptor) }
        guard fchmod(descriptor, 0o600) == 0 else { throw failure("cannot set the mode of \(path)", errno) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                guard errno == EINTR else { throw failure("cannot write \(path)", errno) }
                continue
            }
            offset += written
        }
        guard fsync(descriptor) == 0 else { throw failure("cannot fsync \(path)", errno) }
    }

    private static func fsyncDirectory(_ directory: String) throws(ConfigurationError) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("cannot open the directory \(directory)", errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure("cannot fsync the directory \(directory)", errno) }
    }

    private static func failure(_ what: String, _ error: Int32) -> ConfigurationError {
        ConfigurationError(key: configKey, message: "\(what): \(String(cString: strerror(error)))")
    }
}
