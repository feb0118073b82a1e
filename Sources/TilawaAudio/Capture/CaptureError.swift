/// Why recording from a capture device failed. None of these is the student's fault.
///
/// The device cases carry the PCMs that could be opened instead, so the message a person
/// reads says what to pass to `--device`.
public enum CaptureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No PCM of that name (or its card is absent): `device_not_found`.
    case deviceNotFound(device: String, detail: String, available: [String])
    /// The PCM exists but another program holds it: `device_busy`.
    case deviceBusy(device: String, detail: String, available: [String])
    /// The PCM failed to open, to take 48 kHz mono, or to deliver samples: `device_error`.
    case deviceError(device: String, detail: String, available: [String])
    /// The recording could not be written to the staging file: `io_error`.
    case io(String)

    /// Stable code for logs and the CLI.
    public var code: String {
        switch self {
        case .deviceNotFound: "device_not_found"
        case .deviceBusy: "device_busy"
        case .deviceError: "device_error"
        case .io: "io_error"
        }
    }

    /// Whether the failure is the device's (as opposed to the file system's).
    public var isDeviceFailure: Bool {
        if case .io = self { false } else { true }
    }

    /// The PCMs that were listed when the failure happened (empty for `io_error`).
    public var availableDevices: [String] {
        switch self {
        case let .deviceNotFound(_, _, available), let .deviceBusy(_, _, available), let .deviceError(_, _, available):
            available
        case .io:
            []
        }
    }

    /// One line: what failed and ALSA's reason.
    public var message: String {
        switch self {
        case let .deviceNotFound(device, detail, _):
            "no ALSA capture device \"\(device)\" (\(detail))"
        case let .deviceBusy(device, detail, _):
            "the ALSA device \"\(device)\" is in use by another program (\(detail))"
        case let .deviceError(device, detail, _):
            "the ALSA device \"\(device)\" failed: \(detail)"
        case let .io(detail):
            detail
        }
    }

    /// The message, then for device failures the available PCMs, one per following line
    /// (indented, `name — description`), or a line saying none was found.
    public var description: String {
        guard isDeviceFailure else { return message }
        let available = availableDevices
        guard !available.isEmpty else { return message + "\navailable PCMs: none found" }
        return message + "\navailable PCMs:\n" + available.map { "  " + $0 }.joined(separator: "\n")
    }
}
