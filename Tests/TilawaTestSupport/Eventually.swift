/// Waits (bounded: `seconds`, 60 by default, polling every 50 ms) until `condition` holds;
/// returns whether it did.
///
/// The one bounded wait of the test suites: a condition that never comes fails the test for
/// the right reason instead of hanging it.
public func eventually(seconds: Int = 60, _ condition: () throws -> Bool) async -> Bool {
    for _ in 0..<(seconds * 20) {
        if (try? condition()) == true { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return false
}
