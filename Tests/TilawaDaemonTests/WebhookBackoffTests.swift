import Foundation
import Testing
@testable import TilawaDaemon

@Suite("Webhook backoff: 5 s, 30 s, 2 min, 10 min, 30 min, then 1 h, capped, ±20 % jitter")
struct WebhookBackoffTests {
    @Test("The schedule at the middle of the jitter", arguments: [
        (1, 5.0), (2, 30), (3, 120), (4, 600), (5, 1_800), (6, 3_600), (7, 3_600), (100, 3_600),
    ])
    func schedule(attempt: Int, seconds: TimeInterval) {
        #expect(WebhookBackoff.delay(attempt: attempt, cap: 3_600, random: 0.5) == seconds)
    }

    @Test("The jitter stays within ±20 % and spreads", arguments: 1...7)
    func jitter(attempt: Int) {
        let base = WebhookBackoff.delay(attempt: attempt, cap: 86_400, random: 0.5)
        #expect(approximately(WebhookBackoff.delay(attempt: attempt, cap: 86_400, random: 0), base * 0.8))
        #expect(WebhookBackoff.delay(attempt: attempt, cap: 86_400, random: 0.999_999) < base * 1.2)
        #expect(WebhookBackoff.delay(attempt: attempt, cap: 86_400, random: 0.999_999) > base * 1.199)
        var generator = SystemRandomNumberGenerator()
        let samples = (0..<1_000).map { _ in
            WebhookBackoff.delay(attempt: attempt, cap: 86_400, random: Double.random(in: 0..<1, using: &generator))
        }
        #expect(samples.allSatisfy { $0 >= base * 0.8 - 1e-9 && $0 < base * 1.2 })
        #expect(Set(samples).count > 900, "spread, not one value")
        #expect(samples.contains { $0 < base * 0.95 } && samples.contains { $0 > base * 1.05 })
    }

    @Test("The cap is a ceiling even after the jitter; waits under it are untouched", arguments: [0.0, 0.5, 0.999])
    func cap(random: Double) {
        for attempt in 1...10 {
            #expect(WebhookBackoff.delay(attempt: attempt, cap: 60, random: random) <= 60)
        }
        #expect(WebhookBackoff.delay(attempt: 3, cap: 60, random: random) == 60, "120 s ±20 % is over the cap")
        #expect(approximately(WebhookBackoff.delay(attempt: 1, cap: 60, random: random), 5 * (0.8 + 0.4 * random)))
        #expect(approximately(WebhookBackoff.delay(attempt: 9, cap: 604_800, random: random), 3_600 * (0.8 + 0.4 * random)))
    }

    @Test("Out-of-range inputs are clamped: attempt below 1 is the first, random outside [0, 1] its end, empty schedule waits the cap")
    func clamps() {
        #expect(WebhookBackoff.delay(attempt: 0, cap: 3_600, random: 0.5) == 5)
        #expect(WebhookBackoff.delay(attempt: -3, cap: 3_600, random: 0.5) == 5)
        #expect(approximately(WebhookBackoff.delay(attempt: 1, cap: 3_600, random: -1), 4))
        #expect(approximately(WebhookBackoff.delay(attempt: 1, cap: 3_600, random: 7), 6))
        #expect(WebhookBackoff.delay(attempt: 2, cap: 3_600, random: 0.5, schedule: []) == 3_600)
        #expect(WebhookBackoff.delay(attempt: 2, cap: 1, random: 0.5, schedule: [0.1, 0.2]) == 0.2)
    }
}

private func approximately(_ value: TimeInterval, _ expected: TimeInterval) -> Bool {
    abs(value - expected) <= 1e-9 * max(1, abs(expected))
}
