/// Where artifacts live in an object store: `s3://bucket/prefix` (`artifacts.url`). Keys are
/// the prefix and the artifact's relative path (`prefix/submissions/2026/11/x.opus`).
public struct S3Location: Sendable, Hashable, CustomStringConvertible {
    public let bucket: String
    /// Empty, or without a leading slash and ending in one.
    public let prefix: String

    /// Parses `s3://bucket[/prefix]`; nil for anything else, for a bucket name S3 would refuse
    /// (3–63 of `a–z 0–9 . -`, starting and ending with a letter or digit) or for a prefix with
    /// an empty, `.` or `..` segment.
    public init?(url: String) {
        guard url.hasPrefix("s3://") else { return nil }
        let rest = url.dropFirst("s3://".count)
        let bucket = String(rest.prefix { $0 != "/" })
        let valid = bucket.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2D }
        guard (3...63).contains(bucket.utf8.count), valid, let first = bucket.utf8.first, let last = bucket.utf8.last,
              first != 0x2E, first != 0x2D, last != 0x2E, last != 0x2D else { return nil }
        var prefix = String(rest.dropFirst(bucket.count)).trimmingSlashes()
        if !prefix.isEmpty {
            guard prefix.split(separator: "/", omittingEmptySubsequences: false).allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else { return nil }
            prefix += "/"
        }
        self.bucket = bucket
        self.prefix = prefix
    }

    public init(bucket: String, prefix: String = "") {
        self.bucket = bucket
        let trimmed = prefix.trimmingSlashes()
        self.prefix = trimmed.isEmpty ? "" : trimmed + "/"
    }

    /// The object key of an artifact's relative path.
    public func key(_ relative: String) -> String { prefix + relative }

    /// The relative path of a key under the prefix; nil for a key outside it.
    public func relative(_ key: String) -> String? {
        key.hasPrefix(prefix) ? String(key.dropFirst(prefix.count)) : nil
    }

    public var description: String { "s3://\(bucket)/\(prefix)" }
}

extension String {
    fileprivate func trimmingSlashes() -> String {
        var text = Substring(self)
        while text.hasPrefix("/") { text = text.dropFirst() }
        while text.hasSuffix("/") { text = text.dropLast() }
        return String(text)
    }
}
