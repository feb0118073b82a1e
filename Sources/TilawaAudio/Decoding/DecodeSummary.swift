import CFFmpeg
import Foundation
import TilawaCore

/// How a decode ended.
public struct DecodeSummary: Sendable, Equatable {
    /// Mono 48 kHz samples produced.
    public var samples: Int
    /// True when decoding stopped at the caller's limit before the end of the file.
    public var reachedLimit: Bool
}
