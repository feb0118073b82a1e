import Foundation

/// Named places where a test can make the process die on purpose, to prove crash safety.
///
/// Set `TILAWA_FAILPOINT=<name>` and the process kills itself with SIGKILL (no cleanup, no
/// flush, exactly like a power cut for the process) when it reaches that place. Unset in
/// production: one environment lookup per recording.
public enum Failpoint {
    /// Right after an admission committed, before the encode job ran.
    public static let afterAdmission = "after_admission"
    /// Right after the Opus file was renamed into place, before its row was updated.
    public static let afterEncode = "after_encode"

    /// Dies here if the environment names this failpoint.
    public static func hit(_ name: String) {
        if ProcessInfo.processInfo.environment["TILAWA_FAILPOINT"] == name {
            kill(getpid(), SIGKILL)
        }
    }
}
