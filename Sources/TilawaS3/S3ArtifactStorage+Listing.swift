import Foundation
import TilawaStore

#if canImport(Glibc)
import Glibc
#endif

extension S3ArtifactStorage {
    // MARK: Listing

    /// The months any family has objects in, from the store's "folders": so the sweep also
    /// visits a month no row is dated in (an object left by a delete that failed, say).
    public func layout() throws -> ArtifactLayout {
        var months = Set<String>()
        for family in ArtifactStore.Family.allCases {
            for year in try folders(under: family.rawValue + "/") where year.count == 4 && Int(year) != nil {
                for month in try folders(under: "\(family.rawValue)/\(year)/") where ArtifactStore.monthBounds("\(year)/\(month)") != nil {
                    months.insert("\(year)/\(month)")
                }
            }
        }
        return ArtifactLayout(months: months, strays: [])
    }

    public func list(prefix: String) throws -> [ArtifactEntry] {
        try Self.blocking {
            var entries: [ArtifactEntry] = []
            var token: String?
            repeat {
                let from = token
                let page = try await Self.retrying {
                    try await client.listObjects(bucket: location.bucket, prefix: try key(prefix, listing: true), continuationToken: from)
                }
                for object in page.objects {
                    guard let relative = location.relative(object.key) else { continue }
                    entries.append(ArtifactEntry(path: relative, size: object.size, modified: object.lastModified))
                }
                token = page.nextContinuationToken
            } while token != nil
            return entries
        }
    }

    /// The names of the "folders" directly under `prefix`: `["2026", "2027"]` under `submissions/`.
    func folders(under prefix: String) throws -> [String] {
        try Self.blocking {
            let base = try key(prefix, listing: true)
            var names: [String] = []
            var token: String?
            repeat {
                let from = token
                let page = try await Self.retrying {
                    try await client.listObjects(bucket: location.bucket, prefix: base, delimiter: "/", continuationToken: from)
                }
                names += page.commonPrefixes.compactMap { folder in
                    folder.hasPrefix(base) && folder.hasSuffix("/") ? String(folder.dropFirst(base.count).dropLast()) : nil
                }
                token = page.nextContinuationToken
            } while token != nil
            return names
        }
    }

    /// The object key of an artifact's path; refused when the path could name something
    /// outside the prefix (an empty, `.` or `..` segment: some stores normalise paths).
    func key(_ relative: String, listing: Bool = false) throws -> String {
        let path = listing && relative.hasSuffix("/") ? String(relative.dropLast()) : relative
        guard ArtifactStore.isContained(path) else {
            throw S3Error(code: "bad_path", message: "\(relative) is not a path inside \(location)")
        }
        return location.key(relative)
    }

    // MARK: Operations

    /// One listing of at most one key under the prefix (bucket, keys and clock all checked),
    /// within 3 s, not retried.
    public func isReachable() async -> Bool {
        var probe = client
        probe.timeout = .seconds(3)
        return (try? await probe.listObjects(bucket: location.bucket, prefix: location.prefix, maxKeys: 1)) != nil
    }

    public func claim(for installation: () throws -> String) throws -> String? {
        let marker = Self.installationMarker, installation = try installation()
        return try Self.blocking {
            let current: String
            do {
                current = String(decoding: try await Self.retrying {
                    try await client.getBytes(bucket: location.bucket, key: try key(marker), limit: 4_096)
                }, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            } catch let error as S3Error where error.isNotFound {
                _ = try await Self.retrying {
                    try await client.putObject(bucket: location.bucket, key: try key(marker), bytes: Array((installation + "\n").utf8))
                }
                return nil
            }
            return current == installation ? nil : current
        }
    }

    /// The work area's files older than `cutoff`; no row names a local file.
    public func removeWorkAreaLeftovers(before cutoff: Date) -> Int {
        guard let enumerator = FileManager.default.enumerator(at: workArea, includingPropertiesForKeys: [.isRegularFileKey, .contentModificationDateKey]) else {
            return 0
        }
        var removed = 0
        for case let url as URL in enumerator {
            guard let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .contentModificationDateKey]),
                  values.isRegularFile == true, let modified = values.contentModificationDate, modified < cutoff else { continue }
            if unlink(url.path) == 0 { removed += 1 }
        }
        return removed
    }
}
