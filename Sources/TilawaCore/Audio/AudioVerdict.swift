import Foundation

/// The outcome of judging a recording: accepted when there is no rejection.
public struct AudioVerdict: Sendable, Equatable {
    /// Every rejection that applies, in the contract's order; empty when accepted.
    public var rejections: [AudioRejection]
    /// Warnings that do not reject.
    public var warnings: [AudioWarning]

    /// Creates a verdict.
    public init(rejections: [AudioRejection], warnings: [AudioWarning]) {
        self.rejections = rejections
        self.warnings = warnings
    }

    /// A verdict for a file that could not be analysed at all.
    public init(rejection: AudioRejection) {
        self.init(rejections: [rejection], warnings: [])
    }

    /// True when nothing rejects the recording.
    public var isAccepted: Bool { rejections.isEmpty }

    /// The rejection a client shows first (the contract orders them by what to fix first).
    public var primaryRejection: AudioRejection? { rejections.first }
}
