/// The suite's one bound on waiting for something that should come: a hang detector, never a
/// measure. On a 2-core box loaded past its cores an encode, a judged upload or a daemon's start
/// can take minutes; a wait that returns as soon as its condition holds costs nothing more for
/// being long, so every wait for an outcome uses this unless it has a reason to wait longer.
public enum TestTime {
    public static let hangSeconds = 300
    public static let hangLimit: Duration = .seconds(hangSeconds)
    /// `hangSeconds` as a `TimeInterval`: the bound given to a child process or a wait on one.
    public static let hangInterval = Double(hangSeconds)
}

/// Waits (bounded: `seconds`, `TestTime.hangSeconds` by default, polling every 50 ms) until
/// `condition` holds; returns whether it did.
///
/// The one bounded wait of the test suites: a condition that never comes fails the test for
/// the right reason instead of hanging it.
public func eventually(seconds: Int = TestTime.hangSeconds, _ condition: () throws -> Bool) async -> Bool {
    for _ in 0..<(seconds * 20) {
        if (try? condition()) == true { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return false
}
