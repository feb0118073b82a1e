import Foundation

/// Whether this node belongs in a load balancer's rotation — what `GET /readyz` answers —
/// judged from what the node found, apart from how it looked (each finding is one call, in
/// the order the handler asks; `ReadinessTests` tries the rule alone).
///
/// Out of rotation (503, the first such failure's code) only where taking the node out helps:
/// its database does not answer (`database_unavailable`), its state directory's disk is below
/// `storage.min_free_bytes` (`storage_full`), or the directory its artifacts are kept in is not
/// there (`artifact_store_unavailable`: an unmounted share is this node's fault; the others
/// may have theirs).
///
/// An S3 store that does not answer is every node's outage at once: out of rotation, every
/// node would be, and students would get the balancer's error instead of ours. So the node
/// stays in (200) and says it is `degraded`, naming the check: meanwhile an upload is refused
/// with 503 `artifact_store_unavailable` and `Retry-After`, which the app acts on, playing an
/// earlier recording is refused the same way, and what the database holds (weeks, replies'
/// details, read state) is served as usual.
public struct Readiness: Sendable, Equatable {
    /// A check that failed, as `/readyz` and `tilawa status` name it.
    public struct Failure: Codable, Sendable, Equatable {
        /// The check: `database`, `disk_space` or `artifact_store` (the names of `tilawa status`).
        public var check: String
        /// The problem code a 503 for it carries: `database_unavailable`, `storage_full`, `artifact_store_unavailable`.
        public var code: String
        /// One sentence for people.
        public var detail: String

        public init(check: String, code: String, detail: String) {
            self.check = check
            self.code = code
            self.detail = detail
        }
    }

    private struct Finding: Sendable, Equatable {
        var failure: Failure
        var keepsNodeOut: Bool
    }

    private var findings: [Finding] = []

    /// Nothing found yet: ready.
    public init() {}

    /// The failure that takes the node out of rotation (the first found); nil while it serves.
    public var blocking: Failure? { findings.first { $0.keepsNodeOut }?.failure }
    /// The failures the node serves despite, in the order found.
    public var degraded: [Failure] { findings.filter { !$0.keepsNodeOut }.map(\.failure) }
    /// Every failure found, in the order found.
    public var failures: [Failure] { findings.map(\.failure) }
    /// `/readyz` answers 200.
    public var isReady: Bool { blocking == nil }
    /// `/readyz`'s `status` when it answers 200: `ok`, or `degraded` while a check fails.
    public var status: String { degraded.isEmpty ? "ok" : "degraded" }

    /// Whether the database answered a trivial query.
    public mutating func database(answers: Bool) {
        guard !answers else { return }
        findings.append(.init(failure: .init(check: "database", code: "database_unavailable", detail: "The database does not answer."),
                              keepsNodeOut: true))
    }

    /// The state directory's free bytes (nil: not known, which is not a failure) against
    /// `storage.min_free_bytes`.
    public mutating func disk(freeBytes: Int64?, minimum: Int) {
        guard let freeBytes, freeBytes < Int64(minimum) else { return }
        findings.append(.init(failure: .init(check: "disk_space", code: "storage_full", detail: "The state directory's disk is nearly full."),
                              keepsNodeOut: true))
    }

    /// Whether the store artifacts are kept in answered this node (`description` names it).
    /// `remoteService`: it is one service every node reaches over the network (an S3 store),
    /// whose refusals are answered 503 `artifact_store_unavailable` with `Retry-After`; the node
    /// then serves on, degraded. Otherwise (a directory) the node is out until it is there.
    public mutating func artifactStore(answers: Bool, description: String, remoteService: Bool) {
        guard !answers else { return }
        let detail = remoteService
            ? "The recordings' store (\(description)) does not answer this node: uploads and playback are refused with Retry-After until it does; everything else is served."
            : "The recordings' store (\(description)) does not answer this node."
        findings.append(.init(failure: .init(check: "artifact_store", code: "artifact_store_unavailable", detail: detail),
                              keepsNodeOut: !remoteService))
    }

    /// The check a `/readyz` 503 is for, by its problem code; nil for a code this rule never gives.
    public static func check(forCode code: String) -> String? {
        ["database_unavailable": "database", "storage_full": "disk_space", "artifact_store_unavailable": "artifact_store"][code]
    }
}
