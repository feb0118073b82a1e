/// Why encoding to Ogg Opus failed. None of these is the student's fault.
public enum OpusEncoderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A setting is out of range.
    case invalidSetting(String)
    /// libopusenc refused to start or to encode (its error text).
    case encoder(String)
    /// Writing the output file failed (the system's error text).
    case io(String)

    /// Stable code for logs and the CLI.
    public var code: String {
        switch self {
        case .invalidSetting: "invalid_setting"
        case .encoder: "encoder_failed"
        case .io: "io_error"
        }
    }

    public var description: String {
        switch self {
        case let .invalidSetting(text), let .encoder(text), let .io(text): text
        }
    }
}
