import Foundation
import Prometheus

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

    public init() {
        uploadBytes = registry.makeCounter(name: "tilawa_upload_bytes_total", help: "Bytes of recordings received over HTTP.")
        analysisDuration = registry.makeDurationHistogram(
            name: "tilawa_analysis_duration_seconds", buckets: Self.durationBuckets, help: "Decode and analysis time per upload.")
        encodeDuration = registry.makeDurationHistogram(
            name: "tilawa_encode_duration_seconds", buckets: Self.durationBuckets, help: "Encode time per recording.")
        queueDepth = registry.makeGauge(name: "tilawa_encode_queue_depth", help: "Encode jobs queued or running.")
        awaitingFeedback = registry.makeGauge(name: "tilawa_awaiting_feedback", help: "Submissions waiting for coach feedback.")
        overdue = registry.makeGauge(name: "tilawa_feedback_overdue", help: "Submissions past the feedback deadline.")
        undeliveredEvents = registry.makeGauge(name: "tilawa_notifications_undelivered", help: "Notifications not yet delivered.")
    }

    /// Counts one upload by outcome (`accepted`, `rejected`, `refused`, `error`) and reason code.
    public func countUpload(outcome: String, reason: String) {
        registry.makeCounter(
            name: "tilawa_uploads_total", labels: [("outcome", outcome), ("reason", reason)],
            help: "Uploads by outcome and reason code."
        ).increment()
    }

    /// The Prometheus text exposition.
    public func render() -> String { registry.emitToString() }
}
