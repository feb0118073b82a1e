import Foundation
import Prometheus
import Synchronization
import TilawaStore

/// The daemon's metrics, rendered as Prometheus text at `GET /metrics`.
///
/// One registry per daemon (not the process-global MetricsSystem), so tests can run many
/// daemons in one process and each reports only its own numbers. Names follow Prometheus
/// conventions: `_total` counters, `_seconds` histograms, base units.
public final class TilawaMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()

    private static let durationBuckets: [Duration] = [
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2),
        .seconds(5), .seconds(10), .seconds(30), .seconds(60),
    ]

    /// Bytes of upload bodies received.
    public let uploadBytes: Counter
    /// Time to decode and analyse an upload.
    public let analysisDuration: DurationHistogram
    /// Time to encode a recording.
    public let encodeDuration: DurationHistogram
    /// Jobs queued or running.
    public let queueDepth: Gauge
    /// Submissions waiting for a coach.
    public let awaitingFeedback: Gauge
    /// Submissions past their feedback deadline.
    public let overdue: Gauge
    /// Notifications not yet delivered.
    public let undeliveredEvents: Gauge
    /// Uploads being received or judged now (at most `http.max_concurrent_uploads`).
    public let uploadsInFlight: Gauge
    /// Students' erasure requests pending (set with the status checks, `observeStatus`).
    public let erasureRequestsPending: Gauge
    /// Transactions run again for colliding with another (PostgreSQL), counted by the store.
    private let databaseCollisions: Counter
    private let collisionsSeen = Mutex<Int>(0)
    /// When `observeStatus` last ran (wall clock), for `statusObservationDue`.
    private let statusObservedAt = Mutex<Date?>(nil)

    /// Whether the status checks are due again (and, if so, marks them taken): at most once a
    /// minute, however often Prometheus scrapes — a status report scans the drop folder and
    /// checks a week of files, work a 15 s scrape interval must not repeat.
    public func statusObservationDue(now: Date = Date(), every interval: TimeInterval = 60) -> Bool {
        statusObservedAt.withLock { last in
            if let last, now.timeIntervalSince(last) < interval, now >= last { return false }
            last = now
            return true
        }
    }

    public init() {
        uploadBytes = registry.makeCounter(descriptor: Self.name("upload_bytes", unit: "total", help: "Bytes of recordings received over HTTP."))
        analysisDuration = registry.makeDurationHistogram(
            descriptor: Self.name("analysis_duration", unit: "seconds", help: "Decode and analysis time per upload."),
            buckets: Self.durationBuckets)
        encodeDuration = registry.makeDurationHistogram(
            descriptor: Self.name("encode_duration", unit: "seconds", help: "Encode time per recording."), buckets: Self.durationBuckets)
        queueDepth = registry.makeGauge(descriptor: Self.name("encode_queue_depth", help: "Encode jobs queued or running."))
        awaitingFeedback = registry.makeGauge(descriptor: Self.name("awaiting_feedback", help: "Submissions waiting for coach feedback."))
        overdue = registry.makeGauge(descriptor: Self.name("feedback_overdue", help: "Submissions past the feedback deadline."))
        undeliveredEvents = registry.makeGauge(descriptor: Self.name("notifications_undelivered", help: "Notifications not yet delivered."))
        uploadsInFlight = registry.makeGauge(descriptor: Self.name("uploads_in_flight", help: "Uploads being received or judged now."))
        erasureRequestsPending = registry.makeGauge(descriptor: Self.name(
            "erasure_requests_pending", help: "Students' erasure requests neither cancelled nor carried out yet."))
        databaseCollisions = registry.makeCounter(descriptor: Self.name(
            "database_collisions", unit: "total",
            help: "Transactions run again because PostgreSQL refused them for colliding with another (serialization failure, deadlock)."))
    }

    /// The coaches the turnaround gauges were set for (a coach gone from the window reads 0).
    private let turnaroundCoaches = Mutex<Set<String>>([])

    /// The reply turnaround by the coach of the enrolment, over the last 28 days of due replies:
    /// `tilawa_replies_due{coach}` and `tilawa_replies_in_time{coach}` (their ratio, summed
    /// over coaches, is the share of the promise kept).
    public func observeTurnaround(_ figures: [String: ReplyTurnaround]) {
        let coaches = turnaroundCoaches.withLock { seen -> Set<String> in
            seen.formUnion(figures.keys)
            return seen
        }
        for coach in coaches {
            let figure = figures[coach] ?? ReplyTurnaround(due: 0, inTime: 0)
            registry.makeGauge(descriptor: Self.name("replies_due", help: "Weekly recordings whose reply fell due in the last 28 days, by the coach of their enrolment."),
                               labels: [("coach", coach)]).set(Double(figure.due))
            registry.makeGauge(descriptor: Self.name("replies_in_time", help: "Of tilawa_replies_due, those answered within program.feedback_due_hours."),
                               labels: [("coach", coach)]).set(Double(figure.inTime))
        }
    }

    /// `tilawa_status_check{check}`: each check of `tilawa status`, as its exit code (0 OK,
    /// 1 WARNING, 2 CRITICAL, 3 UNKNOWN), so that an alert rule means what the check means;
    /// and `tilawa_status_value{figure}`, the ages and counts the checks judge.
    public func observeStatus(_ report: StatusReport) {
        for check in report.checks {
            registry.makeGauge(descriptor: Self.name("status_check", help: "Each check of tilawa status as its exit code: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN."),
                               labels: [("check", check.name)]).set(Double(check.state.exitCode))
        }
        let figures: [(String, Int?)] = [
            ("encode_oldest_seconds", report.encodeQueue.oldestAgeSeconds),
            ("encode_failed", report.encodeQueue.failed),
            ("notifications_oldest_seconds", report.notifications.oldestAgeSeconds),
            ("awaiting_feedback_oldest_seconds", report.awaitingFeedback.oldestAgeSeconds),
            ("backup_age_seconds", report.backup.lastAgeSeconds),
            ("missing_artifacts", report.missingArtifacts.count),
        ]
        for (figure, value) in figures {
            registry.makeGauge(descriptor: Self.name("status_value", help: "The figures tilawa status judges: ages in seconds, counts; -1 when there is none."),
                               labels: [("figure", figure)]).set(Double(value ?? -1))
        }
        erasureRequestsPending.set(Double(report.erasureRequests.pending))
    }

    /// Counts one push's answer: `tilawa_push_sent_total{platform, result}` (`sent`,
    /// `retried`, `unregistered`, `refused`, `expired_token`, `key_refused`).
    public func countPush(platform: String, result: String) {
        registry.makeCounter(descriptor: Self.name("push_sent", unit: "total", help: "Pushes answered by APNs or FCM, by platform and result."),
                             labels: [("platform", platform), ("result", result)]).increment()
    }

    /// Brings `tilawa_database_collisions_total` up to the store's own count, `total`.
    public func observeDatabaseCollisions(_ total: Int) {
        let added = collisionsSeen.withLock { seen -> Int in
            defer { seen = max(seen, total) }
            return max(0, total - seen)
        }
        if added > 0 { databaseCollisions.increment(by: Int64(added)) }
    }

    /// The descriptor of `tilawa_<metric>[_<unit>]`.
    static func name(_ metric: String, unit: String = "", help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "tilawa", metricName: metric, unitName: unit, helpText: help)
    }

    /// Counts one upload by outcome (`accepted`, `rejected`, `refused`, `error`) and reason code.
    public func countUpload(outcome: String, reason: String) {
        registry.makeCounter(
            descriptor: Self.name("uploads", unit: "total", help: "Uploads by outcome and reason code."),
            labels: [("outcome", outcome), ("reason", reason)]
        ).increment()
    }

    /// The Prometheus text exposition.
    public func render() -> String { registry.emitToString() }
}
