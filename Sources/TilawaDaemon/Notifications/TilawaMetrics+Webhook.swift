import Foundation
import Prometheus
import TilawaStore

extension TilawaMetrics {
    /// Counts one webhook POST by outcome: `delivered` (a 2xx) or `failed` (anything else).
    func countWebhookDelivery(outcome: String) {
        registry.makeCounter(
            descriptor: Self.name(
                "webhook_deliveries", unit: "total",
                help: "Webhook POSTs by outcome (delivered: 2xx; failed: another status, timeout, connection error)."),
            labels: [("outcome", outcome)]
        ).increment()
    }

    /// Sets the backlog gauges: `tilawa_notifications_undelivered` and the oldest's age.
    func recordOutbox(_ summary: OutboxSummary) {
        undeliveredEvents.set(Double(summary.count))
        registry.makeGauge(descriptor: Self.name(
            "notifications_oldest_undelivered_age", unit: "seconds",
            help: "Age of the oldest notification not yet delivered (0 when none).")
        ).set(summary.oldestAge ?? 0)
    }
}
