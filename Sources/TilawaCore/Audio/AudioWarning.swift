import Foundation

/// Something worth telling the student about a recording that is still accepted.
public enum AudioWarning: String, Sendable, Codable, Equatable, CaseIterable {
    /// Part of the recording reached full scale and is distorted.
    case clipping
    /// The recording starts with a long silence.
    case longLeadingSilence = "long_leading_silence"
    /// The recording ends with a long silence.
    case longTrailingSilence = "long_trailing_silence"

    /// The stable warning code.
    public var code: String { rawValue }

    /// One line a student can act on.
    public var message: String {
        switch self {
        case .clipping:
            "Parts of the recording are distorted because they were too loud. Next time hold the phone a little further away."
        case .longLeadingSilence:
            "The recording starts with a long silence. Next time start reciting soon after you press record."
        case .longTrailingSilence:
            "The recording ends with a long silence. Next time stop the recording when you finish reciting."
        }
    }
}
